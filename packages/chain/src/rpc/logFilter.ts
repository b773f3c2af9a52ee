/**
 * Log filter criteria (eth_getLogs, eth_newFilter, logs subscriptions): parsing with geth's
 * errors, the bloom pre-check and matching one block's logs. Reads nothing: logs.ts scans blocks.
 */
import type { Block } from '@ethereumjs/block';
import { keccak256 } from '../crypto/keccak.js';
import type { BlockTag } from '../state/resolve.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import { invalidParams } from './errors.js';
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

/** List sizes a filter may have (--rpc-logs-max-addresses, --rpc-logs-max-topics). */
export interface FilterCaps {
  logsMaxAddresses: number;
  logsMaxTopics: number;
}

export function parseFilter(v: unknown, index: number, caps?: FilterCaps): LogFilter {
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
    // Counted before anything is parsed: 100,000 addresses are refused at once.
    if (caps && list.length > caps.logsMaxAddresses)
      fail(
        `too many addresses in filter: ${list.length}, at most ${caps.logsMaxAddresses} (--rpc-logs-max-addresses)`,
      );
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
      if (caps && alts.length > caps.logsMaxTopics)
        fail(
          `too many topics in filter position: ${alts.length}, at most ${caps.logsMaxTopics} (--rpc-logs-max-topics)`,
        );
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
