/**
 * The diff layers of path-keyed trie storage (storage/pathLayers.ts, decisions 0211 and 0430):
 * a read by path and hash finds the version asked for in any layer, the buffer or the flush in
 * progress; the window and the memory limit hold however many blocks come; a flush lists each
 * path's newest node once; evm_revert's drop forgets the newer layers' nodes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { latin1, PathLayers } from '../src/storage/pathLayers.js';
import type { PathNode } from '../src/storage/pathNodes.js';
import { trieNodeKey } from '../src/storage/keys.js';

/** A node at account-trie path `path` (nibbles) whose encoding is `enc`, keyed as the store keys it. */
function node(path: number[], enc: Uint8Array): PathNode {
  return [trieNodeKey(undefined, Uint8Array.from(path)), keccak256(enc), enc];
}
const bytes = (seed: number, n = 40) => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i) & 0xff);
const keyOf = (path: number[]) => latin1(trieNodeKey(undefined, Uint8Array.from(path)));
const find = (layers: PathLayers, path: number[], enc: Uint8Array) =>
  layers.find(keyOf(path), keccak256(enc));

const LIMITS = { window: 128, maxBytes: 64 << 20, flushBytes: 16 << 20, flushBlocks: 64 };

describe('PathLayers', () => {
  beforeAll(() => initKeccak());

  it('finds each block’s version of a path by its hash, and no other', () => {
    const layers = new PathLayers(LIMITS);
    const v1 = bytes(1);
    const v2 = bytes(2);
    const v3 = bytes(3);
    layers.add(1n, [node([1, 2], v1), node([3], bytes(9))]);
    layers.add(2n, [node([1, 2], v2)]);
    layers.add(3n, [node([1, 2], v3)]);
    expect(find(layers, [1, 2], v1)).toEqual(v1);
    expect(find(layers, [1, 2], v2)).toEqual(v2);
    expect(find(layers, [1, 2], v3)).toEqual(v3);
    expect(find(layers, [3], bytes(9))).toEqual(bytes(9));
    // Another version's hash at the path, or the right hash at another path: not there.
    expect(find(layers, [1, 2], bytes(4))).toBeUndefined();
    expect(layers.find(keyOf([1, 3]), keccak256(v1))).toBeUndefined();
  });

  it('keeps the later node when one block lists a path twice', () => {
    const layers = new PathLayers(LIMITS);
    layers.add(1n, [node([5], bytes(1)), node([5], bytes(2, 60))]);
    expect(find(layers, [5], bytes(2, 60))).toEqual(bytes(2, 60));
    // Counted once: one node of 60 bytes plus its overhead, whatever the first listing was.
    const one = new PathLayers(LIMITS);
    one.add(1n, [node([5], bytes(2, 60))]);
    expect(layers.memoryBytes).toBe(one.memoryBytes);
  });

  it('holds the window: older blocks merge into the buffer, stay readable until flushed', () => {
    const layers = new PathLayers({ ...LIMITS, window: 4 });
    for (let b = 1; b <= 10; b++)
      layers.add(BigInt(b), [node([b & 15, 1], bytes(b)), node([0], bytes(100 + b))]);
    expect(layers.size).toBe(4);
    expect(layers.newest).toBe(10n);
    expect(layers.oldest).toBe(6n);
    // Merged: the buffer has each path's newest node only.
    expect(find(layers, [3, 1], bytes(3))).toEqual(bytes(3));
    expect(find(layers, [0], bytes(106))).toEqual(bytes(106));
    expect(find(layers, [0], bytes(105))).toBeUndefined();
    const flush = layers.takeFlush(true)!;
    expect(flush.from).toBe(1n);
    expect(flush.next).toBe(7n);
    // 6 paths [b, 1] and path [0] once, with its newest node.
    const nodes = [...flush.entries()];
    expect(nodes).toHaveLength(7);
    const root = nodes.filter(([name]) => name === keyOf([0]));
    expect(root.map(([, enc]) => enc)).toEqual([bytes(106)]);
    // Walked again (the clean cache takes the nodes once the batch has landed): the same nodes.
    expect([...flush.entries()]).toEqual(nodes);
    // Readable while the flush is on its way, gone from memory once it has landed.
    expect(find(layers, [2, 1], bytes(2))).toEqual(bytes(2));
    layers.flushed();
    expect(find(layers, [2, 1], bytes(2))).toBeUndefined();
    expect(find(layers, [8, 1], bytes(8))).toEqual(bytes(8));
  });

  it('holds the memory limit over any number of blocks', () => {
    // ~100 KB of nodes a block; the layers may hold 1 MiB, the buffer is written at 2 MiB.
    const limits = { window: 128, maxBytes: 1 << 20, flushBytes: 2 << 20, flushBlocks: 64 };
    const layers = new PathLayers(limits);
    let most = 0;
    for (let b = 1; b <= 300; b++) {
      const nodes: PathNode[] = [];
      for (let i = 0; i < 200; i++) {
        // The layers do not hash what they keep: any 32 bytes stand for the keccak here.
        const path = Uint8Array.of((b + i) & 15, i & 15, (i >> 4) & 15);
        nodes.push([trieNodeKey(undefined, path), bytes(b + i, 32), bytes(b * 1000 + i, 500)]);
      }
      layers.add(BigInt(b), nodes);
      // As ChainStore does: a due flush is taken at once and lands before the next block.
      if (layers.takeFlush()) layers.flushed();
      most = Math.max(most, layers.memoryBytes);
    }
    // The diff layers stay under their limit (+ the block that passed it), the buffer under its own.
    expect(most).toBeLessThanOrEqual(limits.maxBytes + limits.flushBytes + 200 * 700);
    expect(layers.size).toBeLessThan(20);
    expect(layers.oldest).toBeGreaterThan(280n);
  });

  it('drops the layers above a block (evm_revert), and refuses one older than the disk layer', () => {
    const layers = new PathLayers({ ...LIMITS, window: 3 });
    for (let b = 1; b <= 5; b++) layers.add(BigInt(b), [node([7], bytes(b))]);
    expect(layers.dropAbove(4n)).toBe(true);
    expect(find(layers, [7], bytes(5))).toBeUndefined();
    expect(find(layers, [7], bytes(4))).toEqual(bytes(4));
    expect(layers.newest).toBe(4n);
    expect(layers.dropAbove(1n)).toBe(false);
  });
});
