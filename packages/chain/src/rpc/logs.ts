/**
 * Log filters (eth_getLogs, eth_newFilter, logs subscriptions): criteria parsing with geth's
 * errors, bloom pre-check per block, then receipt scan.
 */
import type { Block } from '@ethereumjs/block';
import { keccak256 } from '../crypto/keccak.js';
import type { BlockTag } from '../state/resolve.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import { blockAt, pendingShape, sealedView } from './chainReads.js';
import type { RpcContext } from './context.js';
import { invalidParams, serverError } from './errors.js';
import { formatLog, type PendingShape, pendingHashOf } from './format.js';
import { parseBlockNumber, parseData } from './params.js';

export interface LogFilter {
  fromBlock?: BlockTag;
  toBlock?: BlockTag;
  blockHash?: Uint8Array;
  addresses: Uint8Array[];
  /** Per position: null = any, else one of these. */
  topics: (Uint8Array[] | null)[];
}

export function parseFilter(v: unknown, index: number): LogFilter {
  const fail = (why: string): never => {
    throw invalidParams(`invalid argument ${index}: ${why}`);
  };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('expected a filter object');
  const o = v as Record<string, unknown>;
  const f: LogFilter = { addresses: [], topics: [] };
  if (o.blockHash !== undefined && o.blockHash !== null) {
    if (
      (o.fromBlock !== undefined && o.fromBlock !== null) ||
      (o.toBlock !== undefined && o.toBlock !== null)
    )
      fail('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    f.blockHash = parseData(o.blockHash, (w) => fail(`blockHash: ${w}`), 32);
  }
  if (o.fromBlock !== undefined && o.fromBlock !== null)
    f.fromBlock = parseBlockNumber(o.fromBlock, (w) => fail(`fromBlock: ${w}`));
  if (o.toBlock !== undefined && o.toBlock !== null)
    f.toBlock = parseBlockNumber(o.toBlock, (w) => fail(`toBlock: ${w}`));
  if (o.address !== undefined && o.address !== null) {
    const list = Array.isArray(o.address) ? o.address : [o.address];
    f.addresses = list.map((a) => parseData(a, (w) => fail(`address: ${w}`), 20));
  }
  if (o.topics !== undefined && o.topics !== null) {
    if (!Array.isArray(o.topics)) fail('topics: expected an array');
    const topics = o.topics as unknown[];
    if (topics.length > 4) fail('topics: too many topics (at most 4)');
    f.topics = topics.map((t) => {
      if (t === null) return null;
      const alts = Array.isArray(t) ? t : [t];
      if (alts.length === 0) return null;
      return alts.map((x) => parseData(x, (w) => fail(`topics: ${w}`), 32));
    });
  }
  return f;
}

function bloomHas(bloom: Uint8Array, value: Uint8Array): boolean {
  const h = keccak256(value);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    if ((bloom[256 - 1 - (bit >> 3)] & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

export function bloomMayMatch(bloom: Uint8Array, f: LogFilter): boolean {
  if (f.addresses.length && !f.addresses.some((a) => bloomHas(bloom, a))) return false;
  for (const alts of f.topics) if (alts && !alts.some((t) => bloomHas(bloom, t))) return false;
  return true;
}

function eq(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

export function logMatches(log: { address: Uint8Array; topics: Uint8Array[] }, f: LogFilter): boolean {
  if (f.addresses.length && !f.addresses.some((a) => eq(a, log.address))) return false;
  if (f.topics.length > log.topics.length) return false;
  for (let i = 0; i < f.topics.length; i++) {
    const alts = f.topics[i];
    if (alts && !alts.some((t) => eq(t, log.topics[i]))) return false;
  }
  return true;
}

/** The matching logs of one block, formatted. */
export function blockLogs(
  block: Block,
  receipts: StoredReceipt[],
  f: LogFilter,
  opts: { pending?: PendingShape; removed?: boolean } = {},
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const h = block.header;
  const hash = opts.pending ? pendingHashOf(opts.pending) : block.hash();
  let logIndex = 0;
  receipts.forEach((r, i) => {
    for (const l of r.logs) {
      if (logMatches(l, f))
        out.push(
          formatLog(
            l,
            {
              blockHash: hash,
              blockNumber: h.number,
              blockTimestamp: h.timestamp,
              txHash: block.transactions[i].hash(),
              txIndex: i,
              logIndex,
            },
            opts.removed,
          ),
        );
      logIndex++;
    }
  });
  return out;
}

const MAX_RANGE = 100_000n;

export async function getLogs(c: RpcContext, f: LogFilter): Promise<Record<string, unknown>[]> {
  if (f.blockHash) {
    const v = await blockAt(c, { hash: f.blockHash });
    if (!v) throw serverError('unknown block');
    return blockLogs(v.block, await v.receipts(), f);
  }
  // The head and the block being built, read together (they switch together at a seal): a seal
  // during the scan below neither repeats nor skips a block's logs — the block being built is
  // read from this snapshot, whose number is head + 1.
  const head = c.chain.blocks.head.header.number;
  const building = c.producer.pending;
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
  if (to - from > MAX_RANGE) throw serverError(`query exceeds the maximum block range of ${MAX_RANGE}`);
  const out: Record<string, unknown>[] = [];
  const last = to > head ? head : to;
  for (let n = from; n <= last; n++) {
    // Headers first: most blocks are ruled out by their bloom without decoding transactions.
    const header = await c.chain.blocks.headerByNumber(n);
    if (!header || !bloomMayMatch(header.logsBloom, f)) continue;
    const block = await c.chain.blocks.byNumber(n);
    if (!block) continue;
    const v = await sealedView(c, block);
    out.push(...blockLogs(block, await v.receipts(), f));
  }
  if (wantsPending && building.number === head + 1n)
    out.push(
      ...blockLogs(
        building.block,
        building.txs.map((t) => t.receipt),
        f,
        { pending: pendingShape(c) },
      ),
    );
  return out;
}
