/** ES2024's Atomics.waitAsync (Node 16+), typed here: the ES2023 library types lack it. */
export type WaitAsyncResult = { async: false; value: string } | { async: true; value: Promise<string> };

/** `Atomics.waitAsync(a, index, value)`: keeps no process alive by itself (ref something meanwhile). */
export function waitAsync(a: Int32Array, index: number, value: number): WaitAsyncResult {
  return (Atomics as unknown as { waitAsync: typeof waitAsync }).waitAsync(a, index, value);
}
