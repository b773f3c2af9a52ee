/**
 * resolve(blockTag): the ONE place a block tag becomes a block and a state.
 *   pending                      -> the block being built (its overlay state)
 *   latest / safe / finalized    -> the head, read from the flat state
 *   earliest / a number / a hash -> that sealed block, read through the trie at its root
 *                                   (refused past `--state-window`: StateUnavailableError)
 * A number beyond the head is `undefined` (block methods answer null; state methods fail).
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { equalBytes } from '../primitives/hex.js';
import type { BlockReader } from '../storage/blockReader.js';
import type { TrieNodeStore } from '../trie/types.js';
import type { FlatStateReader } from './flatState.js';
import type { ForkBase } from './forkState.js';
import type { StateReader } from './stateReader.js';
import { TrieStateReader } from './trieState.js';

export type BlockTag =
  | { tag: 'latest' | 'safe' | 'finalized' | 'earliest' | 'pending' }
  | { number: bigint }
  | { hash: Uint8Array; requireCanonical?: boolean };

/** The pending block as state/ sees it (the builder provides it). */
export interface PendingView {
  header: BlockHeader;
  state: StateReader;
}

export interface Resolved {
  /** The sealed block, or undefined for pending. */
  block?: Block;
  header: BlockHeader;
  state: StateReader;
  pending: boolean;
}

export interface ResolveDeps {
  blocks: BlockReader;
  flat: FlatStateReader;
  nodes: TrieNodeStore;
  code: (hash: Uint8Array) => Promise<Uint8Array | undefined>;
  pending: () => PendingView;
  /** On a fork: what the local tries do not hold is the remote's (forkState.ts). */
  fork?: ForkBase;
  /** Throws when the node no longer keeps block `n`'s state (`--state-window`, ChainStore). */
  requireState?: (n: bigint) => void;
}

export async function resolveBlock(d: ResolveDeps, t: BlockTag): Promise<Block | undefined> {
  if ('tag' in t) {
    if (t.tag === 'earliest') return d.blocks.byNumber(0n);
    return d.blocks.head; // pending is answered by the caller
  }
  if ('number' in t) return d.blocks.byNumber(t.number);
  const b = await d.blocks.byHash(t.hash);
  if (b && t.requireCanonical) {
    const canon = await d.blocks.hashOf(b.header.number);
    if (!canon || !equalBytes(canon, b.hash())) return undefined;
  }
  return b;
}

export async function resolve(d: ResolveDeps, t: BlockTag): Promise<Resolved | undefined> {
  if ('tag' in t && t.tag === 'pending') {
    const p = d.pending();
    return { header: p.header, state: p.state, pending: true };
  }
  const head = d.blocks.head;
  // The hot path: latest (and its aliases) read the flat state.
  if ('tag' in t && t.tag !== 'earliest')
    return { block: head, header: head.header, state: d.flat, pending: false };
  const block = await resolveBlock(d, t);
  if (!block) return undefined;
  const past = !equalBytes(block.hash(), head.hash()) && !(d.fork && block.header.number < d.fork.number);
  // Past the window the tries no longer hold that block's state: a clear error, not a missing node.
  if (past) d.requireState?.(block.header.number);
  const state = equalBytes(block.hash(), head.hash())
    ? d.flat
    : d.fork && block.header.number < d.fork.number
      ? d.fork.at(block.header.number) // below a fork block: the remote's state there
      : new TrieStateReader(block.header.stateRoot, d.nodes, d.code, d.fork);
  return { block, header: block.header, state, pending: false };
}
