/** Byte and hex conversions used inside the node (the RPC edge has its own strict parsers). */
export type Hex = `0x${string}`;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function bytesToHex(b: Uint8Array): Hex {
  let s = '0x';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s as Hex;
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
