/**
 * Base's per-item flashblock subscriptions (design, "Base's RPC extensions"), one message per
 * item of the newest flashblock only — so across flashblocks and seals each pre-confirmed
 * transaction and log comes exactly once:
 *
 *   newFlashblockTransactions          each pre-confirmed transaction's hash
 *   newFlashblockTransactions, true    the transaction object (blockHash null, blockNumber and
 *                                      transactionIndex set) with its `logs`
 *   pendingLogs, filter                each pre-confirmed log that matches (address, topics)
 *
 * Items are rendered once per flashblock for all subscribers, while it waits for its deadline
 * (onFlashblockBuilt), as newFlashblocks and /flashblocks do.
 */
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { pendingShape } from './chainReads.js';
import type { Connection, RpcContext } from './context.js';
import { flashblockItems } from './flashblockItems.js';
import { type LogFilter, logMatches, parseFilter } from './logFilter.js';
import type { Params } from './params.js';

function notify(conn: Connection, subscription: string, result: unknown): void {
  conn.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } });
}

/**
 * Subscribes `conn` to one of these kinds under `id`; returns the unsubscribe, or undefined
 * when `kind` is not one of them.
 */
export function subscribeFlashblockItems(
  kind: string,
  p: Params,
  c: RpcContext,
  conn: Connection,
  id: string,
): (() => void) | undefined {
  const shape = pendingShape(c);
  let each: (s: PendingSnapshot) => void;
  let want: 'hashes' | 'full' | 'logs';
  if (kind === 'newFlashblockTransactions') {
    const full = p.has(1) && p.raw(1) === true;
    if (p.has(1) && typeof p.raw(1) !== 'boolean') p.fail(1, 'expected true (full transactions) or false');
    want = full ? 'full' : 'hashes';
    each = full
      ? (s) => {
          for (const t of flashblockItems(s, shape, 'full').full!) notify(conn, id, t);
        }
      : (s) => {
          for (const h of flashblockItems(s, shape, 'hashes').hashes) notify(conn, id, h);
        };
  } else if (kind === 'pendingLogs') {
    const filter: LogFilter = parseFilter(p.has(1) ? p.raw(1) : {}, 1, c.limits);
    want = 'logs';
    each = (s) => {
      for (const l of flashblockItems(s, shape, 'logs').logs!)
        if (logMatches(l.log, filter)) notify(conn, id, l.json);
    };
  } else return undefined;
  const offBuilt = c.producer.onFlashblockBuilt((s) => {
    if (s.added.length) flashblockItems(s, shape, want);
  });
  const offShown = c.producer.onFlashblock((s) => {
    if (s.added.length) each(s);
  });
  return () => {
    offBuilt();
    offShown();
  };
}
