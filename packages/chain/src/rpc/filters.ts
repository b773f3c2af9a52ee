/** eth_newFilter & co: polling filters over the FilterManager. */
import { method, type Methods } from './context.js';
import { serverError } from './errors.js';
import { parseFilter } from './logFilter.js';
import { getLogs } from './logs.js';

const filterNotFound = () => serverError('filter not found');

export const filterMethods: Methods = {
  eth_newFilter: method(['filter'], 1, (p, c) => c.filters.install('logs', parseFilter(p.raw(0), 0))),
  eth_newBlockFilter: method([], 0, (_p, c) => c.filters.install('blocks')),
  eth_newPendingTransactionFilter: method(['fullTransactions'], 0, (_p, c) =>
    c.filters.install('pendingTransactions'),
  ),
  eth_uninstallFilter: method(['filterId'], 1, (p, c) => c.filters.uninstall(p.string(0))),
  eth_getFilterChanges: method(['filterId'], 1, (p, c) => {
    const changes = c.filters.poll(p.string(0));
    if (!changes) throw filterNotFound();
    return changes;
  }),
  eth_getFilterLogs: method(['filterId'], 1, async (p, c) => {
    const f = c.filters.get(p.string(0));
    if (f?.kind !== 'logs') throw filterNotFound();
    return getLogs(c, f.criteria!);
  }),
};
