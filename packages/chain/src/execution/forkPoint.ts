/**
 * Where a fork (--fork-url) starts: the config asked from the remote once, when the data
 * directory is new (chain id, block N's hash and state root, block 0's hash), and block N
 * written as the local head, so numbering continues at N+1 and blocks are built on top of it.
 * Decision: docs/decisions/0144-fork-reads.md.
 */
import type { Common } from '@ethereumjs/common';
import type { DevChainConfig, ForkConfig } from '../chainspec/chainConfig.js';
import { hexToBytes } from '../primitives/hex.js';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { openTrie } from '../state/trieAdapter.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { type RemoteBlock, remoteBlock } from '../storage/forkBlocks.js';
import { ForkError, ForkSource } from '../storage/forkSource.js';
import type { ChainContext } from './chainContext.js';
import { commitBlock } from './commitBlock.js';

export interface ForkOptions {
  url: string;
  /** Default: the remote's latest block. */
  blockNumber?: bigint;
  timeoutMs: number;
}

/** A new fork's config, asked from the remote. `chainId`: the user's --chain-id, else the remote's. */
export async function forkConfig(
  o: ForkOptions,
  base: Omit<DevChainConfig, 'fork' | 'chainId' | 'timestamp' | 'gasLimit'>,
  chainId: bigint | undefined,
): Promise<DevChainConfig> {
  const source = new ForkSource({ url: o.url, blockNumber: 0n, timeoutMs: o.timeoutMs });
  const [remoteChainId, latest, genesis] = await Promise.all([
    source.call<string>('eth_chainId', []),
    source.call<string>('eth_blockNumber', []),
    source.call<{ hash: string } | null>('eth_getBlockByNumber', ['0x0', false]),
  ]);
  const n = o.blockNumber ?? BigInt(latest);
  if (n > BigInt(latest))
    throw new ForkError(
      `--fork-block-number ${n} is beyond the remote's latest block ${BigInt(latest)} (${o.url})`,
    );
  const block = await source.call<Record<string, string> | null>('eth_getBlockByNumber', [
    `0x${n.toString(16)}`,
    false,
  ]);
  if (!block || !genesis) throw new ForkError(`fork: ${o.url} has no block ${n}`);
  const fork: ForkConfig = {
    url: o.url,
    blockNumber: n.toString(),
    hash: block.hash,
    stateRoot: block.stateRoot,
    genesisHash: genesis.hash,
  };
  return {
    ...base,
    chainId: (chainId ?? BigInt(remoteChainId)).toString(),
    gasLimit: BigInt(block.gasLimit).toString(),
    timestamp: Number(BigInt(block.timestamp)),
    fork,
  };
}

const nothing: StateReader = {
  readAccount: async () => undefined,
  readStorage: async () => new Uint8Array(0),
  readCode: async () => new Uint8Array(0),
};

/** The fork block as the remote has it (its receipts too), ready to be written as the head. */
export interface ForkPointBlock {
  stateRoot: Uint8Array;
  block: RemoteBlock;
}

/** Asks the remote for the fork block (the remote must answer). */
export async function fetchForkPoint(source: ForkSource, common: Common, n: bigint): Promise<ForkPointBlock> {
  const json = await source.blockJson(n);
  if (!json) throw new ForkError(`fork: ${source.url} has no block ${n}`);
  return { stateRoot: hexToBytes(json.stateRoot), block: await remoteBlock(source, common, json) };
}

/** Writes the fork block as the head of the fork's database (new, or emptied by anvil_reset). */
export async function commitForkPoint(ctx: ChainContext, p: ForkPointBlock): Promise<void> {
  const rb = p.block;
  const state = new JournaledState(nothing);
  const root = {
    root: p.stateRoot,
    nodes: [],
    accounts: new Map(),
    trie: openTrie(EMPTY_TRIE_ROOT, ctx.nodes),
  };
  const txHashes = rb.block.transactions.map((t) => t.hash());
  await (
    await commitBlock(
      ctx,
      { block: rb.block, receipts: rb.receipts, senders: rb.senders, txHashes },
      state,
      root,
    )
  ).durable;
}

/** Writes the fork block as the head of a new fork's database (the remote must answer). */
export async function writeForkPoint(ctx: ChainContext): Promise<void> {
  const fork = ctx.fork!;
  await commitForkPoint(ctx, await fetchForkPoint(fork.source, ctx.spec.common, fork.number));
}
