/**
 * RLP decoding for submitted transactions: the results and error messages of @ethereumjs/rlp's
 * `RLP.decode`, but every byte string is a view into the input (`subarray`), not a copy. The
 * library copies each field into an ArrayBuffer of its own (13 for a transfer), most of a
 * submission's decoding cost and garbage; the pool keeps the raw bytes anyway, so views into them
 * cost nothing more (docs/decisions/0341-transactions-decoded-as-views.md).
 *
 * test/txpool-rlp.test.ts checks it against the library on valid and damaged encodings.
 */

export type RlpItem = Uint8Array | RlpItem[];

/** A malformed encoding; the message is the library's own (`invalid RLP: ...`). */
export class RlpError extends Error {}

const EMPTY = new Uint8Array(0);

/** Decodes one item that must span all of `input` (`invalid RLP: remainder must be zero`). */
export function decodeRlpViews(input: Uint8Array): RlpItem {
  if (input.length === 0) return EMPTY;
  const out = { end: 0 };
  const item = decodeAt(input, 0, input.length, out);
  if (out.end !== input.length) throw new RlpError('invalid RLP: remainder must be zero');
  return item;
}

/**
 * The item starting at `at`, within `[at, limit)`: sets `out.end` to where it ends. Mirrors the
 * library's checks in its order (its lengths count the prefix byte, hence the offsets below).
 */
function decodeAt(input: Uint8Array, at: number, limit: number, out: { end: number }): RlpItem {
  const first = input[at];
  const avail = limit - at;
  if (first <= 0x7f) {
    out.end = at + 1;
    return input.subarray(at, at + 1);
  }
  if (first <= 0xb7) {
    const length = first - 0x7f; // prefix included
    if (length > avail) throw outOfBounds();
    if (length === 2 && input[at + 1] < 0x80) {
      throw new RlpError('invalid RLP encoding: invalid prefix, single byte < 0x80 are not prefixed');
    }
    out.end = at + length;
    return first === 0x80 ? EMPTY : input.subarray(at + 1, at + length);
  }
  if (first <= 0xbf) {
    const lLength = first - 0xb6; // prefix included
    if (avail - 1 < lLength) throw new RlpError('invalid RLP: not enough bytes for string length');
    const length = readLength(input, at, lLength, avail);
    if (length <= 55) throw new RlpError('invalid RLP: expected string length to be greater than 55');
    if (length + lLength > avail) throw outOfBounds();
    out.end = at + lLength + length;
    return input.subarray(at + lLength, at + lLength + length);
  }
  let start: number;
  let end: number;
  if (first <= 0xf7) {
    const length = first - 0xbf; // prefix included
    if (length > avail) throw outOfBounds();
    start = at + 1;
    end = at + length;
  } else {
    const lLength = first - 0xf6; // prefix included
    const length = readLength(input, at, lLength, avail);
    if (length < 56) throw new RlpError('invalid RLP: encoded list too short');
    if (lLength + length > avail) throw new RlpError('invalid RLP: total length is larger than the data');
    start = at + lLength;
    end = at + lLength + length;
  }
  const items: RlpItem[] = [];
  const inner = { end: 0 };
  for (let i = start; i < end; i = inner.end) items.push(decodeAt(input, i, end, inner));
  out.end = end;
  return items;
}

/** A long form's length: the bytes after the prefix up to `lLength` (which counts the prefix). */
function readLength(input: Uint8Array, at: number, lLength: number, avail: number): number {
  if (lLength > avail) throw outOfBounds();
  if (input[at + 1] === 0) throw new RlpError('invalid RLP: extra zeros');
  let n = 0;
  for (let i = at + 1; i < at + lLength; i++) n = n * 256 + input[i];
  return n;
}

function outOfBounds(): RlpError {
  return new RlpError('invalid RLP (safeSlice): end slice of Uint8Array out-of-bounds');
}
