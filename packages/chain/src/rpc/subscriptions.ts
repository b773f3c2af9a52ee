/**
 * eth_subscribe / eth_unsubscribe over WebSocket: newHeads and logs fire on seals,
 * newFlashblocks after every flashblock (the pending block; `true` as the second parameter for
 * full transactions), newPendingTransactions when the pool accepts a transaction; Base's
 * newFlashblockTransactions and pendingLogs are in flashblockSubscriptions.ts.
 */
import { randomBytes } from 'node:crypto';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { hexToBytes } from '../primitives/hex.js';
import { method, type Connection, type Methods } from './context.js';
import { invalidParams, serverError } from './errors.js';
import { pendingShape } from './chainReads.js';
import { formatBlock, formatHeader, formatTx, type PendingShape } from './format.js';
import { subscribeFlashblockItems } from './flashblockSubscriptions.js';
import { blockLogs, parseFilter } from './logFilter.js';

/**
 * A flashblock's pending block, formatted once for every newFlashblocks subscriber (a full block
 * of 2,000 transfers is ~2,000 transaction objects; each subscriber formatting its own copy
 * delayed every later listener, and the next flashblock, by as much), and while the flashblock
 * waits for its deadline, as /flashblocks renders its messages.
 */
const formatted = new WeakMap<PendingSnapshot, Map<string, unknown>>();
function pendingBlockJson(s: PendingSnapshot, full: boolean, shape: PendingShape): unknown {
  let f = formatted.get(s);
  if (!f) {
    f = new Map();
    formatted.set(s, f);
  }
  const key = `${shape}:${full}`;
  let out = f.get(key);
  if (out === undefined) {
    out = formatBlock(
      s.block,
      full,
      s.txs.map((t) => t.sender),
      { pending: shape },
    );
    f.set(key, out);
  }
  return out;
}

function notify(conn: Connection, subscription: string, result: unknown): void {
  conn.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } });
}

export const subscriptionMethods: Methods = {
  eth_subscribe: method(['subscriptionType', 'options'], 1, async (p, c, conn) => {
    if (!conn) throw serverError('notifications not supported');
    const kind = p.string(0);
    if (conn.subscriptions.size >= c.limits.maxSubscriptions)
      throw serverError(
        `too many subscriptions: at most ${c.limits.maxSubscriptions} per connection (--rpc-max-subscriptions)`,
      );
    const id = `0x${randomBytes(16).toString('hex')}`;
    let off: () => void;
    if (kind === 'newHeads') {
      off = c.producer.onSealed((block) => notify(conn, id, formatHeader(block.header, block.hash())));
    } else if (kind === 'logs') {
      const filter = parseFilter(p.has(1) ? p.raw(1) : {}, 1, c.limits);
      off = c.producer.onSealed((block, txs) => {
        for (const l of blockLogs(
          block,
          txs.map((t) => t.receipt),
          filter,
        ))
          notify(conn, id, l);
      });
    } else if (kind === 'newFlashblocks') {
      // The pending block after every flashblock (index 0: the block just opened, empty).
      const full = p.has(1) && p.raw(1) === true;
      const shape = pendingShape(c);
      const offBuilt = c.producer.onFlashblockBuilt((s) => pendingBlockJson(s, full, shape));
      const offShown = c.producer.onFlashblock((s) => notify(conn, id, pendingBlockJson(s, full, shape)));
      off = () => {
        offBuilt();
        offShown();
      };
    } else if (kind === 'newPendingTransactions') {
      const full = p.has(1) && p.raw(1) === true;
      off = c.pool.onAdded((t) => notify(conn, id, full ? formatTx(t.tx, hexToBytes(t.sender)) : t.hash));
    } else {
      const items = subscribeFlashblockItems(kind, p, c, conn, id);
      if (!items)
        throw invalidParams(`invalid argument 0 (subscriptionType): no "${kind.slice(0, 40)}" subscription`);
      off = items;
    }
    conn.subscriptions.set(id, off);
    return id;
  }),
  eth_unsubscribe: method(['subscriptionId'], 1, (p, _c, conn) => {
    if (!conn) throw serverError('notifications not supported');
    const id = p.string(0);
    const off = conn.subscriptions.get(id);
    if (!off) return false;
    off();
    conn.subscriptions.delete(id);
    return true;
  }),
};
