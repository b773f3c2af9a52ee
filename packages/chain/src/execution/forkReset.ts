/**
 * anvil_reset / hardhat_reset on a fork (--fork-url): back to the fork point, or onto a new fork;
 * and anvil_setRpcUrl: the same fork read from another address.
 *
 *   no target, or the same URL and block ─> one batch drops the blocks on top of the fork block
 *       and everything written to the flat state since the fork; the fork block is the head again;
 *       what was read from the remote stays ('F' keys, its blocks up to N): no network needed
 *   another URL or block ─> the new fork's config and block asked from the remote FIRST (a remote
 *       that fails leaves the node as it was) ─> one batch drops the chain and the remote's values
 *       at the old block, and stores the new config ─> the fork attached again ─> its block written
 *
 * `apply` runs inside BlockProducer.rewind (production stopped, journal emptied), like evm_revert.
 * Decision: docs/decisions/0301-reset-on-a-fork.md.
 */
import type { ChainConfig, DevChainConfig } from '../chainspec/chainConfig.js';
import { bytesToHex } from '../primitives/hex.js';
import { ForkError, ForkSource } from '../storage/forkSource.js';
import { keys } from '../storage/keys.js';
import { blockDeletions } from './blockDeletions.js';
import type { ChainContext } from './chainContext.js';
import { commitForkPoint, fetchForkPoint, type ForkPointBlock, forkConfig } from './forkPoint.js';
import { attachFork } from './openChain.js';

/** Where `{ forking: { jsonRpcUrl, blockNumber } }` points: either left out keeps the current URL / takes the remote's latest block. */
export interface ForkTarget {
  url?: string;
  blockNumber?: bigint;
}

/** A reset worked out before production stops: `refork` holds what the remote answered. */
export type ForkReset =
  | { kind: 'forkPoint' }
  | { kind: 'refork'; config: DevChainConfig; point: ForkPointBlock };

/** Kinds of entries a new fork drops: the chain and the remote's state at the old block. */
const REFORK_PREFIXES = ['H', 'n', 'b', 'r', 's', 't', 'T', 'a', 'o', 'F'];

/** Asks the remote what a reset to `target` needs (nothing for a reset to the fork point). */
export async function prepareForkReset(
  ctx: ChainContext,
  target: ForkTarget | undefined,
): Promise<ForkReset> {
  const fork = ctx.fork!;
  if (!target) return { kind: 'forkPoint' };
  const url = target.url ?? fork.source.url;
  const raw = await ctx.store.get(keys.config);
  if (!raw) throw new Error('the chain has no stored config');
  const stored = JSON.parse(Buffer.from(raw).toString('utf8')) as ChainConfig;
  if (stored.kind !== 'dev') throw new Error('a fork holds a dev chain config');
  // The node's chain id is fixed (its blocks, transactions and signatures are made with it), and
  // the remote's transactions decode only with their own: the new remote must share it.
  const remoteChainId = BigInt(
    await new ForkSource({ url, blockNumber: 0n, timeoutMs: fork.source.timeoutMs }).call<string>(
      'eth_chainId',
      [],
    ),
  );
  if (remoteChainId !== ctx.spec.chainId)
    throw new ForkError(
      `anvil_reset: ${url} serves chain id ${remoteChainId}, this node ${ctx.spec.chainId}: fork it with a new node (--fork-url)`,
    );
  const config = await forkConfig(
    { url, blockNumber: target.blockNumber, timeoutMs: fork.source.timeoutMs },
    stored,
    BigInt(stored.chainId),
  );
  const n = BigInt(config.fork!.blockNumber);
  if (url === fork.source.url && n === fork.number) return { kind: 'forkPoint' };
  const source = new ForkSource({ url, blockNumber: n, timeoutMs: fork.source.timeoutMs });
  return { kind: 'refork', config, point: await fetchForkPoint(source, ctx.spec.common, n) };
}

/** The chain as `r` says, in one batch; then the caches are read again. Inside BlockProducer.rewind. */
export async function applyForkReset(ctx: ChainContext, r: ForkReset): Promise<void> {
  if (r.kind === 'forkPoint') await backToForkPoint(ctx);
  else await refork(ctx, r.config, r.point);
  await ctx.store.flushed();
  await ctx.flat.forget();
  await ctx.blocks.forget();
}

async function backToForkPoint(ctx: ChainContext): Promise<void> {
  const { store, blocks } = ctx;
  const fork = ctx.fork!;
  const ops: { key: Uint8Array; value?: Uint8Array }[] = [];
  ops.push(...(await blockDeletions(ctx, fork.number, blocks.head.header.number)));
  // On a fork the flat state holds only what was written since (tombstones included).
  for (const p of ['a', 'o'])
    for (const key of await store.keysWithPrefix(Uint8Array.of(p.charCodeAt(0)))) ops.push({ key });
  const point = await store.hashByNumber(fork.number);
  if (!point) throw new Error(`the fork block ${fork.number} is not stored`);
  ops.push({ key: keys.head, value: point });
  // The local trie at the fork point is the empty one: the trie and its diffs go (decision 0211).
  ops.push(...(await store.stateResetOps(fork.number + 1n)));
  await store.rewrite(ops);
  store.stateReset(fork.number + 1n);
}

async function refork(ctx: ChainContext, config: DevChainConfig, point: ForkPointBlock): Promise<void> {
  const { store } = ctx;
  const ops: { key: Uint8Array; value?: Uint8Array }[] = [];
  for (const p of REFORK_PREFIXES)
    for (const key of await store.keysWithPrefix(Uint8Array.of(p.charCodeAt(0)))) ops.push({ key });
  // Stored with the chain: a restart opens the new fork.
  ops.push({ key: keys.config, value: Buffer.from(JSON.stringify(config)) });
  // The state trie and its diffs too: the new fork point starts them again (decision 0211).
  ops.push(...(await store.stateResetOps()));
  await store.rewrite(ops);
  store.stateReset();
  attachFork(ctx, config.fork!, { timeoutMs: ctx.fork!.source.timeoutMs });
  await commitForkPoint(ctx, point);
}

/**
 * anvil_setRpcUrl: the fork's remote is at `url` from now on (and after a restart without
 * --fork-url). It must serve the fork block with the same hash: values already kept stay valid.
 */
export async function moveForkRemote(ctx: ChainContext, url: string): Promise<void> {
  const fork = ctx.fork!;
  const probe = new ForkSource({ url, blockNumber: fork.number, timeoutMs: fork.source.timeoutMs });
  const [theirs, ours, chainId] = await Promise.all([
    probe.call<{ hash: string } | null>('eth_getBlockByNumber', [probe.blockTag, false]),
    ctx.blocks.byNumber(fork.number),
    probe.call<string>('eth_chainId', []),
  ]);
  // Block hashes do not commit to the chain id: two dev chains can share a genesis.
  if (BigInt(chainId) !== ctx.spec.chainId)
    throw new ForkError(
      `anvil_setRpcUrl: ${url} serves chain id ${BigInt(chainId)}, this node ${ctx.spec.chainId}: the fork's remote must serve the same chain`,
    );
  const want = ours && bytesToHex(ours.hash());
  if (!theirs || theirs.hash.toLowerCase() !== want)
    throw new ForkError(
      `anvil_setRpcUrl: ${url} has ${theirs ? `block ${fork.number} ${theirs.hash}` : `no block ${fork.number}`}, not the fork block ${want}: anvil_reset with {forking: {jsonRpcUrl}} forks another chain`,
    );
  fork.source.url = url;
  const raw = await ctx.store.get(keys.config);
  if (!raw) return;
  const stored = JSON.parse(Buffer.from(raw).toString('utf8')) as ChainConfig;
  if (stored.kind !== 'dev' || !stored.fork) return;
  stored.fork.url = url;
  await ctx.store.put(keys.config, Buffer.from(JSON.stringify(stored)));
}
