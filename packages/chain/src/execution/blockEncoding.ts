/**
 * A block's RLP assembled from bytes we already hold (the header fields and each transaction's
 * signed encoding), instead of @ethereumjs re-encoding every transaction field (a third of the
 * seal's time on a 1,000-transaction block). Same bytes as Block.serialize().
 */
import { RLP } from '@ethereumjs/rlp';
import { concat } from '../primitives/hex.js';

function lengthPrefix(len: number, offset: number): Uint8Array {
  if (len < 56) return Uint8Array.of(offset + len);
  const hex = len.toString(16);
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return concat(Uint8Array.of(offset + 55 + bytes.length), bytes);
}

function list(items: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const i of items) len += i.length;
  return concat(lengthPrefix(len, 0xc0), ...items);
}

function byteString(b: Uint8Array): Uint8Array {
  if (b.length === 1 && b[0] < 0x80) return b;
  return concat(lengthPrefix(b.length, 0x80), b);
}

/**
 * `txs`: each transaction as sent (legacy: its RLP list; typed: type byte + payload), which is
 * how a block body embeds them (typed ones as byte strings).
 */
export function encodeBlock(
  headerFields: Uint8Array[],
  txs: Uint8Array[],
  withWithdrawals: boolean,
): Uint8Array {
  const parts = [
    RLP.encode(headerFields),
    list(txs.map((t) => (t[0] >= 0xc0 ? t : byteString(t)))),
    list([]),
  ];
  if (withWithdrawals) parts.push(list([]));
  return list(parts);
}
