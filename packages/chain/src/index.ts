/**
 * @wharf/chain — the chain node: an Ethereum-compatible L2 sequencer and JSON-RPC node with
 * 200 ms pre-confirmations. See README.md for the data flow and layout.
 */
export type { ChainNode, ChainNodeOptions, DevAccount } from './options.js';
export { defaultChainNodeOptions } from './options.js';
export type { RpcLimits } from './rpc/limits.js';
export { DEFAULT_RPC_THREADS } from './rpc/limits.js';
export { startChainNode } from './node.js';
export { importChain, exportChain } from './chainfile.js';
export type { ImportChainOptions, ExportChainOptions, ImportProgress } from './chainfile.js';
