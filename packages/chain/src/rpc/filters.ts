/** eth_newFilter & co: polling filters over the FilterManager. */
import { randomBytes } from 'node:crypto';
import { type Connection, method, type Methods } from './context.js';
import { serverError } from './errors.js';
import { parseFilter } from './logFilter.js';
import { getLogs } from './logs.js';

const filterNotFound = () => serverError('filter not found');

/** Who holds a filter: its WebSocket (released when it closes), or over HTTP the client's address. */
function ownerOf(
  conn: Connection | undefined,
  client: string | undefined,
  release: (owner: string) => void,
): string {
  if (!conn) return `http:${client ?? ''}`;
  conn.filterOwner ??= (() => {
    const owner = `ws:${randomBytes(8).toString('hex')}`;
    conn.onClose(() => release(owner));
    return owner;
  })();
  return conn.filterOwner;
}

export const filterMethods: Methods = {
  eth_newFilter: method(['filter'], 1, (p, c, conn, client) => {
    const criteria = parseFilter(p.raw(0), 0, c.limits);
    return c.filters.install(
      'logs',
      ownerOf(conn, client, (o) => c.filters.release(o)),
      criteria,
    );
  }),
  eth_newBlockFilter: method([], 0, (_p, c, conn, client) =>
    c.filters.install(
      'blocks',
      ownerOf(conn, client, (o) => c.filters.release(o)),
    ),
  ),
  eth_newPendingTransactionFilter: method(['fullTransactions'], 0, (_p, c, conn, client) =>
    c.filters.install(
      'pendingTransactions',
      ownerOf(conn, client, (o) => c.filters.release(o)),
    ),
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
