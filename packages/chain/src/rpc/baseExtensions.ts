/**
 * Base's flashblocks RPC methods (design, "Base's RPC extensions"):
 * eth_sendRawTransactionSync (EIP-7966 as Base serves it) and base_transactionStatus.
 * The subscriptions are in flashblockSubscriptions.ts.
 */
import { bytesToHex } from '../primitives/hex.js';
import { method, type Methods } from './context.js';
import { RpcError, ErrorCode } from './errors.js';
import { inclusionOf } from './inclusion.js';
import type { Params } from './params.js';
import { prepareRawTransaction, rawTransactionParam } from './rawTransaction.js';
import { receiptOf } from './receipts.js';

/**
 * The optional timeout: a whole number of milliseconds (Base and EIP-7966 send a JSON number;
 * a hex quantity, as some clients send, is read too). Absent or above `max` (the node's
 * `sendSyncTimeoutMs`, Base's 6,000 by default): `max`.
 */
function timeoutOf(p: Params, max: number): number {
  if (!p.has(1)) return max;
  const v = p.raw(1);
  let ms: number;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v <= 0)
      p.fail(1, `expected a positive whole number of milliseconds, got ${v}`);
    ms = v;
  } else if (typeof v === 'string') {
    const q = p.quantity(1);
    if (q === 0n) p.fail(1, 'expected a positive number of milliseconds, got 0');
    ms = q > BigInt(max) ? max : Number(q);
  } else return p.fail(1, 'expected a number of milliseconds');
  return Math.min(ms, max);
}

export const baseMethods: Methods = {
  /**
   * Submits like eth_sendRawTransaction (same checks, same errors) and answers with the receipt
   * once the transaction is pre-confirmed or sealed, whichever comes first; after the timeout,
   * error 4 with the transaction's hash in `data` (it stays in the pool and may still land).
   */
  eth_sendRawTransactionSync: method(
    ['data', 'timeout'],
    1,
    async (p, c, _conn, _client, prepared) => {
      const raw = rawTransactionParam(p, prepared);
      const ms = timeoutOf(p, c.limits.sendSyncTimeoutMs);
      const t = await c.pool.add(raw);
      const hash = Uint8Array.from(Buffer.from(t.hash.slice(2), 'hex'));
      const found = await inclusionOf(c).waitFor(c, hash, ms);
      if (!found)
        throw new RpcError(
          ErrorCode.TransactionTimeout,
          `the transaction was added to the pool but not pre-confirmed within ${ms} ms`,
          t.hash,
        );
      // Rendered while the flashblock waited for its showing, when there was time (decision 0510).
      return found.receipt ?? receiptOf(c, found);
    },
    prepareRawTransaction,
  ),

  /** `{"status":"Known"}` while the pool holds the transaction, else `"Unknown"` (as Base). */
  base_transactionStatus: method(['transactionHash'], 1, (p, c) => ({
    status: c.pool.get(bytesToHex(p.hash(0)) as `0x${string}`) ? 'Known' : 'Unknown',
  })),
};
