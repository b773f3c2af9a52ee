/**
 * A flashblock's new transactions and logs as JSON, rendered once per flashblock and shape for
 * every consumer (flashblockSubscriptions.ts, and log filters to `pending` in filterManager.ts).
 */
import type { IncludedTx, PendingSnapshot } from '../builder/pendingBlock.js';
import type { StoredLog } from '../storage/receiptCodec.js';
import { formatLog, formatTx, type PendingShape, pendingHashOf } from './format.js';

type Json = Record<string, unknown>;

export interface FlashblockItems {
  hashes: string[];
  full?: Json[];
  logs?: { log: StoredLog; json: Json }[];
}

const rendered = new WeakMap<PendingSnapshot, Map<PendingShape, FlashblockItems>>();

/** What flashblock `s` added: hashes; with `want` 'full' or 'logs', transaction objects and logs too. */
export function flashblockItems(
  s: PendingSnapshot,
  shape: PendingShape,
  want: 'hashes' | 'full' | 'logs',
): FlashblockItems {
  let byShape = rendered.get(s);
  if (!byShape) {
    byShape = new Map();
    rendered.set(s, byShape);
  }
  let r = byShape.get(shape);
  if (!r) {
    r = { hashes: s.added.map((t) => `0x${Buffer.from(t.hash).toString('hex')}`) };
    byShape.set(shape, r);
  }
  if (want === 'hashes') return r;
  if (r.full && r.logs) return r;
  const h = s.header;
  const first = s.txs.length - s.added.length;
  // Log indexes count across the whole block: those of the transactions before this flashblock's.
  let logIndex = 0;
  for (let i = 0; i < first; i++) logIndex += s.txs[i].receipt.logs.length;
  const blockHash = pendingHashOf(shape);
  const full: Json[] = [];
  const logs: { log: StoredLog; json: Json }[] = [];
  s.added.forEach((t: IncludedTx, k) => {
    const txIndex = first + k;
    const txLogs = t.receipt.logs.map((log) => {
      const json = formatLog(log, {
        blockHash,
        blockNumber: s.number,
        blockTimestamp: h.timestamp,
        txHash: t.hash,
        txIndex,
        logIndex: logIndex++,
      });
      logs.push({ log, json });
      return json;
    });
    full.push({
      ...formatTx(t.tx, t.sender, {
        blockHash: null,
        blockNumber: s.number,
        blockTimestamp: h.timestamp,
        index: txIndex,
        baseFee: h.baseFeePerGas,
      }),
      logs: txLogs,
    });
  });
  r.full = full;
  r.logs = logs;
  return r;
}
