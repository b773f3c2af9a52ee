/**
 * Receipts as consensus encodes them (EIP-2718 typed envelope over RLP
 * [status | postState, cumulativeGasUsed, logsBloom, logs]), and as the database stores them:
 * the same envelope without the logs bloom (decision 0421). The bloom is 256 of a transfer's
 * ~262 bytes and a function of the logs, so it is computed again on read (geth does the same);
 * what a reader gets back is the consensus encoding, byte for byte. A block's receipts are
 * stored as one RLP list of these encodings; a stored receipt with four fields (written before
 * 0421) keeps its bloom and is read as it is.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToBigint } from '../primitives/hex.js';

export interface StoredLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface StoredReceipt {
  type: number;
  /** 1 success, 0 failure; undefined before Byzantium (postState instead). */
  status?: number;
  postState?: Uint8Array;
  cumulativeGasUsed: bigint;
  bloom: Uint8Array;
  logs: StoredLog[];
}

const ONE = Uint8Array.of(1);
const NONE = new Uint8Array(0);
const NO_LOGS = Uint8Array.of(0xc0);

/**
 * Written straight into one exact-size array (one per transaction sealed: through the generic
 * RLP encoder it allocated ~3 KB of intermediate arrays for a transfer's 262 bytes,
 * docs/perf/2026-11-27-longrun-night.md); the logs, when there are any, through RLP.
 */
export function encodeReceipt(r: StoredReceipt): Uint8Array {
  const first = r.postState ?? (r.status ? ONE : NONE);
  const gas = r.cumulativeGasUsed;
  let gasBytes = 0;
  for (let g = gas; g > 0n; g >>= 8n) gasBytes++;
  const gasItem = gasBytes === 1 && gas < 0x80n ? 1 : 1 + gasBytes;
  const logs = r.logs.length ? RLP.encode(r.logs.map((l) => [l.address, l.topics, l.data])) : NO_LOGS;
  const payload = itemLength(first) + gasItem + itemLength(r.bloom) + logs.length;
  const typed = r.type === 0 ? 0 : 1;
  const out = new Uint8Array(typed + headerLength(payload) + payload);
  if (typed) out[0] = r.type;
  let at = writeHeader(out, typed, 0xc0, payload);
  at = writeItem(out, at, first);
  if (gasItem === 1) out[at++] = Number(gas);
  else {
    out[at++] = 0x80 + gasBytes;
    for (let i = gasBytes - 1, g = gas; i >= 0; i--, g >>= 8n) out[at + i] = Number(g & 0xffn);
    at += gasBytes;
  }
  at = writeItem(out, at, r.bloom);
  out.set(logs, at);
  return out;
}

/** Bytes of the RLP string item holding `b`. */
function itemLength(b: Uint8Array): number {
  return b.length === 1 && b[0] < 0x80 ? 1 : headerLength(b.length) + b.length;
}

/** Bytes of an RLP header for a payload of `n` bytes. */
function headerLength(n: number): number {
  if (n <= 55) return 1;
  let k = 0;
  for (let m = n; m > 0; m = Math.floor(m / 256)) k++;
  return 1 + k;
}

/** Writes an RLP header (`base` 0x80 for a string, 0xc0 for a list) at `at`; returns where the payload goes. */
function writeHeader(out: Uint8Array, at: number, base: number, n: number): number {
  if (n <= 55) {
    out[at] = base + n;
    return at + 1;
  }
  const k = headerLength(n) - 1;
  out[at] = base + 55 + k;
  for (let i = k, m = n; i >= 1; i--, m = Math.floor(m / 256)) out[at + i] = m & 0xff;
  return at + 1 + k;
}

function writeItem(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) {
    out[at] = b[0];
    return at + 1;
  }
  const from = writeHeader(out, at, 0x80, b.length);
  out.set(b, from);
  return from + b.length;
}

/**
 * A consensus encoding, or a stored one (three fields: no bloom, computed from the logs).
 */
export function decodeReceipt(enc: Uint8Array): StoredReceipt {
  const type = enc[0] >= 0xc0 ? 0 : enc[0];
  const fields = RLP.decode(type === 0 ? enc : enc.subarray(1)) as any[];
  const first = fields[0] as Uint8Array;
  const isRoot = first.length === 32;
  const stored = fields.length === 3;
  const logs = (fields[stored ? 2 : 3] as any[]).map(([address, topics, data]) => ({
    address,
    topics,
    data,
  }));
  return {
    type,
    status: isRoot ? undefined : first.length === 0 ? 0 : 1,
    postState: isRoot ? first : undefined,
    cumulativeGasUsed: bytesToBigint(fields[1]),
    bloom: stored ? logsBloom(logs) : fields[2],
    logs,
  };
}

/** The 2048-bit bloom of the logs' addresses and topics (yellow paper, M3:2048). */
export function logsBloom(logs: readonly StoredLog[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (v: Uint8Array) => {
    const h = keccak256(v);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i] << 8) | h[i + 1]) & 2047;
      bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
    }
  };
  for (const l of logs) {
    add(l.address);
    for (const t of l.topics) add(t);
  }
  return bloom;
}

/**
 * A block's consensus receipts as the database stores them: one RLP list of the encodings with
 * the bloom cut out (the bytes around it copied as they are).
 */
export function encodeReceiptList(receipts: Uint8Array[]): Uint8Array {
  return RLP.encode(receipts.map(withoutBloom));
}

/**
 * A block's receipts as the seal hands them to the store (the consensus encodings, one RLP
 * list: readable as they are) made compact for the batch (ChainStore, off the seal's path).
 */
export function compactReceiptList(list: Uint8Array): Uint8Array {
  return encodeReceiptList(RLP.decode(list) as Uint8Array[]);
}

/** What encodeReceiptList stored (or the full encodings stored before decision 0421), as consensus encodings. */
export function decodeReceiptList(list: Uint8Array): Uint8Array[] {
  return (RLP.decode(list) as Uint8Array[]).map((r) =>
    isWithoutBloom(r) ? encodeReceipt(decodeReceipt(r)) : r,
  );
}

/** What decodeReceiptList reads, decoded (the blooms computed once, not encoded and decoded again). */
export function decodeStoredReceipts(list: Uint8Array): StoredReceipt[] {
  return (RLP.decode(list) as Uint8Array[]).map(decodeReceipt);
}

/** An RLP item at `at`: where its payload starts and where the item ends. */
function item(b: Uint8Array, at: number): { payload: number; end: number } {
  const p = b[at];
  if (p < 0x80) return { payload: at, end: at + 1 };
  if (p < 0xb8) return { payload: at + 1, end: at + 1 + p - 0x80 };
  if (p < 0xc0) return long(b, at, p - 0xb7);
  if (p < 0xf8) return { payload: at + 1, end: at + 1 + p - 0xc0 };
  return long(b, at, p - 0xf7);
}

function long(b: Uint8Array, at: number, lenOfLen: number): { payload: number; end: number } {
  let len = 0;
  for (let i = 1; i <= lenOfLen; i++) len = len * 256 + b[at + i];
  return { payload: at + 1 + lenOfLen, end: at + 1 + lenOfLen + len };
}

function listHeader(payloadLength: number): Uint8Array {
  if (payloadLength < 56) return Uint8Array.of(0xc0 + payloadLength);
  const len: number[] = [];
  for (let n = payloadLength; n > 0; n = Math.floor(n / 256)) len.unshift(n % 256);
  return Uint8Array.of(0xf7 + len.length, ...len);
}

/** The receipt's list (after a type byte, if any): its header's end and its end. */
function receiptList(enc: Uint8Array): { start: number; payload: number; end: number } {
  const start = enc[0] >= 0xc0 ? 0 : 1;
  return { start, ...item(enc, start) };
}

/** A consensus receipt without its bloom (its third field); a stored one is returned as it is. */
function withoutBloom(enc: Uint8Array): Uint8Array {
  const { start, payload, end } = receiptList(enc);
  const status = item(enc, payload);
  const gas = item(enc, status.end);
  if (gas.end >= end) throw new Error('a receipt with fewer than three fields');
  const bloom = item(enc, gas.end);
  if (bloom.end >= end) return enc; // three fields: stored already
  const header = listHeader(end - payload - (bloom.end - gas.end));
  const out = new Uint8Array(start + header.length + (gas.end - payload) + (end - bloom.end));
  out.set(enc.subarray(0, start), 0);
  out.set(header, start);
  out.set(enc.subarray(payload, gas.end), start + header.length);
  out.set(enc.subarray(bloom.end, end), start + header.length + (gas.end - payload));
  return out;
}

/** Whether a stored receipt has three fields (its bloom left out). */
function isWithoutBloom(enc: Uint8Array): boolean {
  const { payload, end } = receiptList(enc);
  const gas = item(enc, item(enc, payload).end);
  return item(enc, gas.end).end === end;
}
