/**
 * Trie paths as nibble arrays (one 4-bit value per byte). Node paths are views into the key
 * they were made from, so a put allocates one nibble array per key, not one per level.
 */

/** The 2n nibbles of an n-byte key, high nibble first. */
export function keyToNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const b = key[i];
    out[2 * i] = b >> 4;
    out[2 * i + 1] = b & 0x0f;
  }
  return out;
}

/** Length of the common prefix of `path` and `key` from offset `pos`. */
export function matchLength(path: Uint8Array, key: Uint8Array, pos: number): number {
  const n = Math.min(path.length, key.length - pos);
  let i = 0;
  while (i < n && path[i] === key[pos + i]) i++;
  return i;
}

/** `prefix ++ [nibble]? ++ rest` as a new array (nibble < 0 means none). */
export function joinNibbles(prefix: Uint8Array, nibble: number, rest: Uint8Array): Uint8Array {
  const mid = nibble < 0 ? 0 : 1;
  const out = new Uint8Array(prefix.length + mid + rest.length);
  out.set(prefix, 0);
  if (mid) out[prefix.length] = nibble;
  out.set(rest, prefix.length + mid);
  return out;
}

export const NO_NIBBLES = new Uint8Array(0);
