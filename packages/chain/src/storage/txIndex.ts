/**
 * The transaction index's value (keys.txIndex, decision 0423): the block's number and the
 * transaction's position, each big-endian without leading zeros, behind one byte giving the
 * number's length — 4-7 bytes where it was the block's hash and a u64 (40 bytes). The block's hash
 * is the canonical one at that number (keys.canonical): the index's entries of a block taken off
 * the chain go in the same batch as its canonical number (execution/blockDeletions.ts), and a
 * reader checks the transaction found there is the one asked (reader/localChainReader.ts).
 * A 40-byte value is one written before 0423: block hash + u64 position, read as it is.
 * The key is the hash's first 12 bytes (keys.txIndex, decision 0520): that reader's check is
 * what tells two hashes sharing them apart; entries under the whole hash (keys.oldTxIndex) are
 * read in a data directory that has them.
 */
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { bytesToBigint } from '../primitives/hex.js';

export type TxPosition = { blockHash: Uint8Array; index: number } | { number: bigint; index: number };

export function encodeTxPosition(number: bigint, index: number): Uint8Array {
  const n = bigIntToUnpaddedBytes(number);
  const i = bigIntToUnpaddedBytes(BigInt(index));
  const out = new Uint8Array(1 + n.length + i.length);
  out[0] = n.length;
  out.set(n, 1);
  out.set(i, 1 + n.length);
  return out;
}

export function decodeTxPosition(v: Uint8Array): TxPosition {
  if (v.length === 40)
    return { blockHash: v.slice(0, 32), index: Number(Buffer.from(v.subarray(32)).readBigUInt64BE()) };
  const len = v[0];
  if (len > 8 || v.length < 1 + len || v.length > 1 + len + 4)
    throw new Error(`a transaction index entry of ${v.length} bytes that is not one`);
  return { number: bytesToBigint(v.subarray(1, 1 + len)), index: Number(bytesToBigint(v.subarray(1 + len))) };
}
