/**
 * An account's RLP as the state trie holds it, rlp([nonce, balance, storageRoot, codeHash]),
 * written straight into one exact-size array: the same bytes as @ethereumjs/util's
 * Account.serialize(), which checks and copies each field and took about a third of loading a
 * 10,000-account state file (docs/perf/2026-11-27-state-files.md).
 */
import type { Account } from '@ethereumjs/util';

/** Big-endian bytes of `n` without leading zeros (none for 0). */
function quantityLength(n: bigint): number {
  let k = 0;
  while (n > 0n) {
    k++;
    n >>= 8n;
  }
  return k;
}

/** Bytes of `n` as an RLP string item. */
function itemLength(n: bigint, k: number): number {
  return k === 1 && n < 0x80n ? 1 : 1 + k;
}

function writeQuantity(out: Uint8Array, pos: number, n: bigint, k: number): number {
  if (k === 1 && n < 0x80n) {
    out[pos] = Number(n);
    return pos + 1;
  }
  out[pos++] = 0x80 + k;
  for (let i = k - 1; i >= 0; i--) {
    out[pos + i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return pos + k;
}

export function encodeAccount(a: Account): Uint8Array {
  const kn = quantityLength(a.nonce);
  const kb = quantityLength(a.balance);
  const payload =
    itemLength(a.nonce, kn) + itemLength(a.balance, kb) + 1 + a.storageRoot.length + 1 + a.codeHash.length;
  const header = payload < 56 ? 1 : 2; // at most 9 + 33 + 33 + 33 bytes: one length byte
  const out = new Uint8Array(header + payload);
  let pos = 0;
  if (payload < 56) out[pos++] = 0xc0 + payload;
  else {
    out[pos++] = 0xf8;
    out[pos++] = payload;
  }
  pos = writeQuantity(out, pos, a.nonce, kn);
  pos = writeQuantity(out, pos, a.balance, kb);
  out[pos++] = 0x80 + a.storageRoot.length;
  out.set(a.storageRoot, pos);
  pos += a.storageRoot.length;
  out[pos++] = 0x80 + a.codeHash.length;
  out.set(a.codeHash, pos);
  return out;
}
