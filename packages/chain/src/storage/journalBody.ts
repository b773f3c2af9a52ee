/**
 * A sealed block's body kept as its flashblock journal records (decision 0521): the body files
 * hold the block's "shell" — where its records are, its header and the items after its
 * transaction list (uncles, withdrawals) — and the block's RLP is assembled from the shell and the
 * transactions read from the journal. The transactions' bytes are on disk once: in the journal,
 * before any flashblock showed them.
 *
 *   shell: segment u32 | from u64 | length u32 | header item (RLP) | the items after the txs (RLP)
 *   block: list( header, list(txs, typed ones as byte strings), the items after )
 *
 * The writer checks, before it keeps a shell, that the block assembled from the records it has
 * just written is the sealed block byte for byte (ChainStore.writeBlock): a reader then gets the
 * same bytes as from the block's RLP stored whole.
 */
import type { JournalRange } from './journalRecords.js';

type Bytes = Uint8Array;

const POINTER_BYTES = 16;

/** [offset of the payload, offset past the end] of the RLP item at `at`. */
function itemAt(b: Bytes, at: number): [number, number] {
  const p = b[at];
  if (p === undefined) throw new Error('RLP ends before an item');
  if (p < 0x80) return [at, at + 1];
  if (p < 0xb8) return [at + 1, at + 1 + p - 0x80];
  if (p < 0xc0) return long(b, at, p - 0xb7);
  if (p < 0xf8) return [at + 1, at + 1 + p - 0xc0];
  return long(b, at, p - 0xf7);
}

function long(b: Bytes, at: number, n: number): [number, number] {
  let len = 0;
  for (let i = 1; i <= n; i++) len = len * 256 + b[at + i];
  return [at + 1 + n, at + 1 + n + len];
}

function lengthPrefix(len: number, offset: number): Bytes {
  if (len < 56) return Uint8Array.of(offset + len);
  const bytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

/** The block's transaction list as the block's RLP holds it: typed ones as byte strings. */
function txListOf(txs: Bytes[]): Bytes[] {
  const parts: Bytes[] = [];
  let len = 0;
  for (const t of txs) {
    if (t[0] < 0xc0 && !(t.length === 1 && t[0] < 0x80)) {
      const p = lengthPrefix(t.length, 0x80);
      parts.push(p);
      len += p.length;
    }
    parts.push(t);
    len += t.length;
  }
  parts.unshift(lengthPrefix(len, 0xc0));
  return parts;
}

/**
 * The shell of block `rlp` whose transactions are `txs` (the journal's records of it, at
 * `range`), or undefined if the block's transaction list is not exactly those transactions.
 */
export function shellOf(rlp: Bytes, txs: Bytes[], range: JournalRange): Bytes | undefined {
  const [payload, end] = itemAt(rlp, 0);
  if (end !== rlp.length) return undefined;
  const [, headerEnd] = itemAt(rlp, payload);
  const [, txsEnd] = itemAt(rlp, headerEnd);
  const expected = Buffer.concat(txListOf(txs));
  if (!Buffer.from(rlp.buffer, rlp.byteOffset + headerEnd, txsEnd - headerEnd).equals(expected))
    return undefined;
  const out = Buffer.allocUnsafe(POINTER_BYTES + (headerEnd - payload) + (end - txsEnd));
  out.writeUInt32BE(range.segment, 0);
  out.writeBigUInt64BE(BigInt(range.from), 4);
  out.writeUInt32BE(range.to - range.from, 12);
  out.set(rlp.subarray(payload, headerEnd), POINTER_BYTES);
  out.set(rlp.subarray(txsEnd, end), POINTER_BYTES + (headerEnd - payload));
  return out;
}

/** Where a shell's block has its records. */
export function shellRange(shell: Bytes): { segment: number; offset: number; length: number } {
  const b = Buffer.from(shell.buffer, shell.byteOffset, shell.length);
  return { segment: b.readUInt32BE(0), offset: Number(b.readBigUInt64BE(4)), length: b.readUInt32BE(12) };
}

/** The block's RLP from its shell and its transactions (read from the journal). */
export function assembleBlock(shell: Bytes, txs: Bytes[]): Bytes {
  const rest = shell.subarray(POINTER_BYTES);
  const [, headerEnd] = itemAt(rest, 0);
  const list = txListOf(txs);
  let len = rest.length;
  for (const p of list) len += p.length;
  return Buffer.concat([
    lengthPrefix(len, 0xc0),
    rest.subarray(0, headerEnd),
    ...list,
    rest.subarray(headerEnd),
  ]);
}
