/**
 * Receipts as consensus encodes them (EIP-2718 typed envelope over RLP
 * [status | postState, cumulativeGasUsed, logsBloom, logs]); a block's receipts are stored as
 * one RLP list of these encodings.
 */
import { RLP } from '@ethereumjs/rlp';
import { bigintToBytes, bytesToBigint } from '../primitives/hex.js';

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

export function encodeReceipt(r: StoredReceipt): Uint8Array {
  const body = RLP.encode([
    r.postState ?? (r.status ? Uint8Array.of(1) : new Uint8Array(0)),
    bigintToBytes(r.cumulativeGasUsed),
    r.bloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ]);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}

export function decodeReceipt(enc: Uint8Array): StoredReceipt {
  const type = enc[0] >= 0xc0 ? 0 : enc[0];
  const fields = RLP.decode(type === 0 ? enc : enc.subarray(1)) as any[];
  const first = fields[0] as Uint8Array;
  const isRoot = first.length === 32;
  return {
    type,
    status: isRoot ? undefined : first.length === 0 ? 0 : 1,
    postState: isRoot ? first : undefined,
    cumulativeGasUsed: bytesToBigint(fields[1]),
    bloom: fields[2],
    logs: (fields[3] as any[]).map(([address, topics, data]) => ({ address, topics, data })),
  };
}

export function encodeReceiptList(receipts: Uint8Array[]): Uint8Array {
  return RLP.encode(receipts);
}

export function decodeReceiptList(list: Uint8Array): Uint8Array[] {
  return RLP.decode(list) as Uint8Array[];
}
