/** Byte and hex conversions used inside the node (the RPC edge has its own strict parsers). */
export type Hex = `0x${string}`;

/** The two ASCII hex digits of each byte value, low byte first (one 16-bit write per byte). */
const HEX_PAIRS = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const d = i.toString(16).padStart(2, '0');
  HEX_PAIRS[i] = d.charCodeAt(0) | (d.charCodeAt(1) << 8);
}

/**
 * `0x`-prefixed lowercase hex. The digits are written into one reused buffer and decoded once,
 * so the string is flat: appending two digits at a time makes a chain of one V8 cons-string per
 * byte, and these strings are the keys of the state caches, held for as long as the cache
 * holds them. One reused buffer, not one per call: this runs tens of thousands of times a second
 * under load (docs/decisions/0038-bytes-to-hex-reused-buffer.md).
 */
export function bytesToHex(b: Uint8Array): Hex {
  return hexOf(b, EMPTY);
}

/** The hex of `a` then `b` as one flat string: the key of a storage slot (address, slot). */
export function bytesToHexPair(a: Uint8Array, b: Uint8Array): Hex {
  return hexOf(a, b);
}

const EMPTY = new Uint8Array(0);
/** Inputs up to this many bytes are written into `scratch`; longer ones get a buffer of their own. */
const SCRATCH_BYTES = 256;
const scratch = Buffer.allocUnsafeSlow(2 + 2 * SCRATCH_BYTES);

function hexOf(a: Uint8Array, b: Uint8Array): Hex {
  const bytes = a.length + b.length;
  const n = 2 + 2 * bytes;
  const out = bytes <= SCRATCH_BYTES ? scratch : Buffer.allocUnsafe(n);
  out[0] = 0x30; // 0
  out[1] = 0x78; // x
  writeDigits(out, writeDigits(out, 2, a), b);
  return out.toString('latin1', 0, n) as Hex;
}

/** Writes the hex digits of `p` into `out` from `at`; returns where they end. */
function writeDigits(out: Buffer, at: number, p: Uint8Array): number {
  let o = at;
  for (let i = 0; i < p.length; i++, o += 2) {
    const d = HEX_PAIRS[p[i]];
    out[o] = d & 0xff;
    out[o + 1] = d >> 8;
  }
  return o;
}

/** Lenient: accepts an odd length by left-padding (internal data only, never wire input). */
export function hexToBytes(h: string): Uint8Array {
  let s = h.startsWith('0x') ? h.slice(2) : h;
  if (s.length % 2) s = `0${s}`;
  return Uint8Array.from(Buffer.from(s, 'hex'));
}

export function quantity(n: bigint | number): Hex {
  return `0x${n.toString(16)}` as Hex;
}

export function bytesToBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b));
}

/** Big-endian minimal bytes (empty for 0), as RLP wants integers. */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  return hexToBytes(n.toString(16));
}

export function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b.subarray(Math.max(0, b.length - 32)), 32 - Math.min(32, b.length));
  return out;
}

export function u64(n: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}
