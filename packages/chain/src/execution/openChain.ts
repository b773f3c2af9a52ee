/**
 * Opens (or creates) the chain database under <dataDir>/chain: reads the persisted chain config
 * (or writes the given one with its genesis), and returns the ChainContext at the stored head.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type ChainConfig, type ForkConfig, loadChainSpec } from '../chainspec/chainConfig.js';
import { initKeccak } from '../crypto/keccak.js';
import { FlatStateReader } from '../state/flatState.js';
import { ForkState } from '../state/forkState.js';
import { hexToBytes } from '../primitives/hex.js';
import { ForkSource } from '../storage/forkSource.js';
import { BlockReader } from '../storage/blockReader.js';
import { ChainStore, DEFAULT_LAYER_LIMITS } from '../storage/chainStore.js';
import type { LayerLimits } from '../storage/pathLayers.js';
import { keys } from '../storage/keys.js';
import type { ChainContext } from './chainContext.js';
import { writeForkPoint } from './forkPoint.js';
import { writeGenesis } from './genesis.js';
import { rebuildLayers } from './rebuildLayers.js';

export class ChainConfigMismatchError extends Error {
  override readonly name = 'ChainConfigMismatchError';
}

/** A data directory written before decision 0211 (trie nodes keyed by hash): not opened. */
export class OldStateFormatError extends Error {
  override readonly name = 'OldStateFormatError';
}

function oldFormatMessage(dataDir: string): string {
  return `the data directory ${dataDir} holds the chain in the old format (trie nodes keyed by hash, before wharf stored them by path): this version cannot open it. Export its blocks with the previous version (\`wharf chain export FILE\`) and import them into a new --data-dir with this one (\`wharf chain import FILE\`), or start over with a new --data-dir`;
}

export async function openChain(
  dataDir: string,
  /** Used when the database is new; an existing database keeps its own config. */
  config: ChainConfig | (() => ChainConfig | Promise<ChainConfig>),
  opts: {
    requireSame?: (stored: ChainConfig) => string | undefined;
    /** Keep the chain in memory only (`dataDir` unused): gone when the node stops. */
    ephemeral?: boolean;
    /** A fork's remote: another URL than the stored one (it moved), and the request timeout. */
    fork?: { url?: string; timeoutMs: number };
    /** Past state kept (`--state-window`) and how the trie reaches the disk (chainStore.ts). */
    layers?: LayerLimits;
  } = {},
): Promise<ChainContext> {
  await initKeccak();
  let store: ChainStore;
  const limits = opts.layers ?? DEFAULT_LAYER_LIMITS;
  if (opts.ephemeral) store = await ChainStore.openInMemory(limits);
  else {
    const dir = path.join(dataDir, 'chain');
    await fs.mkdir(dir, { recursive: true });
    store = await ChainStore.open(dir, limits);
  }
  try {
    const raw = await store.get(keys.config);
    let stored: ChainConfig;
    if (raw) {
      stored = JSON.parse(Buffer.from(raw).toString('utf8'));
      const problem = opts.requireSame?.(stored);
      if (problem) throw new ChainConfigMismatchError(problem);
    } else {
      stored = typeof config === 'function' ? await config() : config;
    }
    const spec = await loadChainSpec(stored);
    const ctx: ChainContext = {
      spec,
      store,
      blocks: new BlockReader(store, spec.common),
      flat: new FlatStateReader(store),
      nodes: store.trieNodes,
    };
    if (stored.kind === 'dev' && stored.fork) attachFork(ctx, stored.fork, opts.fork);
    await ctx.flat.preload();
    if (!(await ctx.blocks.loadHead())) {
      await (ctx.fork ? writeForkPoint(ctx) : writeGenesis(ctx));
      // The config goes in after genesis: a crash in between leaves an empty, reusable database.
      await store.put(keys.config, Buffer.from(JSON.stringify(stored)));
    } else {
      if (store.stateLayerStart === undefined) throw new OldStateFormatError(oldFormatMessage(dataDir));
      await rebuildLayers(ctx);
    }
    return ctx;
  } catch (e) {
    await store.close();
    throw e;
  }
}

/**
 * Below the fork block, every read goes to the remote (state/forkState.ts, storage/forkBlocks.ts).
 * Attached again by anvil_reset to a new fork (execution/forkReset.ts): `ctx.fork` is changed in
 * place, since the readers hold it.
 */
export function attachFork(
  ctx: ChainContext,
  fork: ForkConfig,
  o: { url?: string; timeoutMs: number } | undefined,
): void {
  const number = BigInt(fork.blockNumber);
  const source = new ForkSource(
    { url: o?.url ?? fork.url, blockNumber: number, timeoutMs: o?.timeoutMs ?? 10_000 },
    ctx.store,
  );
  const below = new ForkState(source, ctx.store);
  ctx.store.tombstones = true;
  const base = {
    root: hexToBytes(fork.stateRoot),
    below,
    source,
    number,
    at: (n: bigint) => new ForkState(source.at(n), ctx.store),
  };
  if (ctx.fork) Object.assign(ctx.fork, base);
  else ctx.fork = base;
  ctx.flat.below = below;
  ctx.blocks.fork = { source, number, genesisHash: hexToBytes(fork.genesisHash) };
}
