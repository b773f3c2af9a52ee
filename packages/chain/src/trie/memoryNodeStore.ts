import type { TrieNodeEntry, TrieNodeStore } from './types.js';

/** A Map key for a hash: one char per byte (about 3x faster than hex here). */
function keyOf(hash: Uint8Array): string {
  return String.fromCharCode.apply(null, hash as unknown as number[]);
}

/** A TrieNodeStore in a Map: for tests, benchmarks and throwaway tries. */
export class MemoryNodeStore implements TrieNodeStore {
  private readonly nodes = new Map<string, Uint8Array>();

  async get(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.nodes.get(keyOf(hash));
  }

  put(hash: Uint8Array, encoded: Uint8Array): void {
    this.nodes.set(keyOf(hash), encoded);
  }

  /** Stores every node of a commit: `store.putAll(trie.commit().nodes)`. */
  putAll(nodes: Iterable<TrieNodeEntry>): void {
    for (const [hash, encoded] of nodes) this.put(hash, encoded); // keyed by hash: the path is not needed
  }

  get size(): number {
    return this.nodes.size;
  }
}
