/**
 * A bounded map for the flat-state cache: two generations of at most `limit` entries each. New
 * entries go to the young generation; a hit in the old one moves the entry up; when the young
 * one is full it becomes the old one and the old one is dropped. So memory is at most 2 × limit
 * entries whatever the chain's size, an entry used within the last `limit` insertions survives
 * (the senders of a busy chain stay warm), and a rotation frees one map at once instead of
 * walking a recency list on every hit (an approximate LRU, as in CLOCK-style caches).
 */
export class GenerationalCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  /** Entries were dropped since the cache was filled (it no longer holds everything it was given). */
  evicted = false;

  constructor(readonly limit: number) {
    if (!(limit > 0)) throw new Error(`GenerationalCache limit must be positive, got ${limit}`);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(k: string): V | undefined {
    const v = this.young.get(k);
    if (v !== undefined) return v;
    const o = this.old.get(k);
    if (o !== undefined) {
      this.old.delete(k);
      this.set(k, o);
    }
    return o;
  }

  has(k: string): boolean {
    return this.young.has(k) || this.old.has(k);
  }

  set(k: string, v: V): void {
    if (!this.young.has(k) && this.young.size >= this.limit) {
      if (this.old.size) this.evicted = true;
      this.old = this.young;
      this.young = new Map();
    }
    this.old.delete(k);
    this.young.set(k, v);
  }

  delete(k: string): void {
    this.young.delete(k);
    this.old.delete(k);
  }

  /** Drops everything (the state under the cache was rewritten: evm_revert, anvil_reset). */
  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.evicted = false;
  }

  /** Drops every entry whose key starts with `prefix` (an account's storage was cleared). */
  deletePrefix(prefix: string): void {
    for (const m of [this.young, this.old]) for (const k of m.keys()) if (k.startsWith(prefix)) m.delete(k);
  }
}
