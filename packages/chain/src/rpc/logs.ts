/**
 * eth_getLogs: the blocks of a range (or one by hash, or the pending one), each ruled out by its
 * bloom before its receipts are read, then matched (logFilter.ts).
 */
import type { BlockTag } from '../state/resolve.js';
import { pendingShape } from './chainReads.js';
import type { RpcContext } from './context.js';
import { invalidParams, serverError } from './errors.js';
import { blockLogs, bloomMayMatch, type LogFilter } from './logFilter.js';

/** What getLogs may cover and return (--rpc-logs-block-range, --rpc-logs-max-results). */
export interface LogQueryCaps {
  logsMaxBlockRange: number;
  logsMaxResults: number;
}

/** geth's message (clients look for it to split their query). */
const tooManyResults = (max: number) => serverError(`query returned more than ${max} results`);

export async function getLogs(
  c: RpcContext,
  f: LogFilter,
  caps: LogQueryCaps = c.limits,
): Promise<Record<string, unknown>[]> {
  const max = caps.logsMaxResults;
  if (f.blockHash) {
    const v = await c.reader.blockAt({ hash: f.blockHash });
    if (!v) throw serverError('unknown block');
    const logs = blockLogs(v.block, await v.receipts(), f);
    if (logs.length > max) throw tooManyResults(max);
    return logs;
  }
  // The head and the block being built, read together (they switch together at a seal): a seal
  // during the scan below neither repeats nor skips a block's logs — the block being built is
  // read from this snapshot, whose number is head + 1.
  const head = c.reader.head().header.number;
  const building = c.reader.pending();
  const num = (t: BlockTag | undefined, d: bigint): bigint => {
    if (!t) return d;
    if ('number' in t) return t.number;
    if ('tag' in t && t.tag === 'earliest') return 0n;
    if ('tag' in t && t.tag === 'pending') return head + 1n;
    return head;
  };
  const from = num(f.fromBlock, head);
  const to = num(f.toBlock, head);
  const wantsPending = to === head + 1n && f.toBlock && 'tag' in f.toBlock && f.toBlock.tag === 'pending';
  if (from > to) throw invalidParams('invalid block range params');
  if (!wantsPending && to > head) throw invalidParams('block range extends beyond current head block');
  const span = to - from + 1n;
  if (span > BigInt(caps.logsMaxBlockRange))
    throw serverError(
      `block range too large: ${span} blocks, at most ${caps.logsMaxBlockRange} (--rpc-logs-block-range)`,
    );
  const out: Record<string, unknown>[] = [];
  const last = to > head ? head : to;
  for (let n = from; n <= last; n++) {
    // Headers first: most blocks are ruled out by their bloom without decoding transactions.
    const header = await c.reader.headerByNumber(n);
    if (!header || !bloomMayMatch(header.logsBloom, f)) continue;
    const block = await c.reader.blockByNumber(n);
    if (!block) continue;
    const v = await c.reader.sealedView(block);
    for (const l of blockLogs(block, await v.receipts(), f)) out.push(l);
    if (out.length > max) throw tooManyResults(max);
  }
  if (wantsPending && building.number === head + 1n) {
    for (const l of blockLogs(
      building.block,
      building.txs.map((t) => t.receipt),
      f,
      { pending: pendingShape(c) },
    ))
      out.push(l);
    if (out.length > max) throw tooManyResults(max);
  }
  return out;
}
