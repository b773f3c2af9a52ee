/**
 * Accounts as the flat state and the forward state diffs store them (decision 0422): the trie's
 * RLP [nonce, balance, storageRoot, codeHash] with an empty string in place of the empty
 * storage root and of the empty code's hash ("slim", as geth's snapshot stores them). An
 * account without code or storage (every wallet, every fresh recipient) is then ~14 bytes
 * instead of ~78. Both forms are read: a full RLP stored before 0422 reads as it is.
 *
 * Everything that reads `keys.account` or a forward diff goes through `accountFromFlat` /
 * `fullAccount`; every writer through `slimAccount`.
 */
import { type Account, createAccountFromRLP, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';

/** One RLP item at `at`: where it ends (items of an account: strings of at most 32 bytes). */
function end(b: Uint8Array, at: number): number {
  const p = b[at];
  if (p < 0x80) return at + 1;
  if (p <= 0xb7) return at + 1 + p - 0x80;
  throw new Error('not an account: an item longer than 55 bytes');
}

/** The list header's length and the payload's end. */
function list(rlp: Uint8Array): { start: number; stop: number } {
  const p = rlp[0];
  if (p >= 0xc0 && p <= 0xf7) return { start: 1, stop: 1 + p - 0xc0 };
  if (p === 0xf8) return { start: 2, stop: 2 + rlp[1] };
  throw new Error('not an account: not a short RLP list');
}

function equal(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

/** The four items of an account's RLP (full or slim): [start, end] of each. */
function items(rlp: Uint8Array): [number, number][] {
  const { start, stop } = list(rlp);
  const out: [number, number][] = [];
  for (let at = start; at < stop; ) {
    const e = end(rlp, at);
    out.push([at, e]);
    at = e;
  }
  if (out.length !== 4 || out[3][1] !== stop || stop !== rlp.length)
    throw new Error('not an account: not four items');
  return out;
}

function withHeader(payload: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of payload) n += p.length;
  const header = n < 56 ? Uint8Array.of(0xc0 + n) : Uint8Array.of(0xf8, n);
  const out = new Uint8Array(header.length + n);
  out.set(header, 0);
  let at = header.length;
  for (const p of payload) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const EMPTY_ITEM = Uint8Array.of(0x80);

/** The trie's RLP of an account, slimmed for the flat state (unchanged if it has code and storage). */
export function slimAccount(rlp: Uint8Array): Uint8Array {
  const [nonce, , root, code] = items(rlp);
  const emptyRoot = root[1] - root[0] === 33 && equal(rlp, root[0] + 1, KECCAK256_RLP);
  const noCode = code[1] - code[0] === 33 && equal(rlp, code[0] + 1, KECCAK256_NULL);
  if (!emptyRoot && !noCode) return rlp;
  return withHeader([
    rlp.subarray(nonce[0], root[0]),
    emptyRoot ? EMPTY_ITEM : rlp.subarray(root[0], root[1]),
    noCode ? EMPTY_ITEM : rlp.subarray(code[0], code[1]),
  ]);
}

const ROOT_ITEM = Uint8Array.of(0xa0, ...KECCAK256_RLP);
const CODE_ITEM = Uint8Array.of(0xa0, ...KECCAK256_NULL);

/** The trie's RLP of a stored account (slim or full). */
export function fullAccount(raw: Uint8Array): Uint8Array {
  const [nonce, , root, code] = items(raw);
  const emptyRoot = root[1] - root[0] === 1;
  const noCode = code[1] - code[0] === 1;
  if (!emptyRoot && !noCode) return raw;
  return withHeader([
    raw.subarray(nonce[0], root[0]),
    emptyRoot ? ROOT_ITEM : raw.subarray(root[0], root[1]),
    noCode ? CODE_ITEM : raw.subarray(code[0], code[1]),
  ]);
}

/** A stored account (slim or full). */
export function accountFromFlat(raw: Uint8Array): Account {
  return createAccountFromRLP(fullAccount(raw));
}
