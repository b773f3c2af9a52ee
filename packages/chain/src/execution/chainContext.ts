/**
 * Everything execution needs about the chain, built once by node.ts: the spec, the database,
 * sealed blocks and the latest flat state.
 */
import type { ChainSpec } from '../chainspec/chainConfig.js';
import type { FlatStateReader } from '../state/flatState.js';
import type { ForkBase } from '../state/forkState.js';
import type { ForkSource } from '../storage/forkSource.js';
import type { BlockReader } from '../storage/blockReader.js';
import type { ChainStore } from '../storage/chainStore.js';
import type { TrieNodeStore } from '../trie/types.js';

export interface ChainContext {
  spec: ChainSpec;
  store: ChainStore;
  blocks: BlockReader;
  flat: FlatStateReader;
  nodes: TrieNodeStore;
  /** Set on a fork (--fork-url): the remote below the fork block (state/forkState.ts). */
  fork?: ForkBase & { source: ForkSource };
}
