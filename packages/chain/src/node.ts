import type { ChainNode, ChainNodeOptions } from './options.js';

/** Composition root of the chain node. Filled in by the chain-node issue. */
export async function startChainNode(_options: ChainNodeOptions): Promise<ChainNode> {
  throw new Error('the chain node has not landed yet');
}
