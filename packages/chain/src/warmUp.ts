/**
 * The start's warm-up of the path that accepts and builds transfers (decision 0550). A node that
 * has just started runs its hot path cold: V8 interprets it, then compiles it with TurboFan on
 * its background threads while the first burst of transactions waits, which cost a fresh node's
 * first 2,000 transfers ~100 µs each more than the next 2,000 (docs/perf/2026-11-28-ingest.md).
 * Before the node listens, the same functions run here on a scratch chain, so that the first
 * burst a user sends after `wharf up` is as fast as the later ones:
 *
 *   signed EIP-1559 transfers (a chain id of its own) ─> JSON text ─> JSON.parse ─> Dispatcher
 *       (eth_sendRawTransaction: hex, decode, recovery on the node's recovery thread, the pool's
 *       checks and add) ─> BlockProducer.mine (staging, plain transfers, the tries and roots, the
 *       seal's encoding, the store's write) ─> next batch
 *
 * The scratch chain is its own: an in-memory store with its own genesis (the test mnemonic's
 * accounts, funded there only), its own producer (manual mode: nothing timed), pool, filters
 * and metrics registry; all of it is closed and dropped at the end. The node's chain, pool,
 * metrics, logs and subscriptions are never touched. The one part shared is the recovery
 * thread, without `expedite`: the node's count of recoveries taken back by the main thread
 * (wharf_txpool_recoveries_on_main_thread_total) stays as it was.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RLP } from '@ethereumjs/rlp';
import secp256k1 from 'secp256k1';
import { BlockProducer } from './builder/blockProducer.js';
import type { DevChainConfig } from './chainspec/chainConfig.js';
import { keccak256 } from './crypto/keccak.js';
import { openChain } from './execution/openChain.js';
import { defaultChainNodeOptions } from './options.js';
import { bytesToHex, concat, hexToBytes } from './primitives/hex.js';
import { LocalChainReader } from './reader/localChainReader.js';
import type { RpcContext } from './rpc/context.js';
import { Dispatcher, type Response } from './rpc/dispatch.js';
import { ethMethods } from './rpc/eth.js';
import { FilterManager } from './rpc/filterManager.js';
import type { RpcLimits } from './rpc/limits.js';
import { createTxPool } from './txpool/index.js';
import type { SenderRecovery } from './txpool/recoveryThread.js';

/**
 * Transfers run through by default: as many as V8 needs to have compiled the path. Measured
 * (docs/perf/2026-11-28-cold-ingest.md): the first burst's CPU per transfer against the start's
 * added time.
 */
export const WARM_UP_TRANSFERS = 1_000;
/** Per JSON-RPC batch and per block, as a busy client sends them (bench/chain.mjs: batches of 100). */
const BATCH = 100;
/** Senders of the scratch genesis; each sends BATCH / SENDERS transfers per batch, nonces in order. */
const SENDERS = 10;
/** The scratch chain's id ("warm"): its transactions are valid on no chain a user runs. */
const CHAIN_ID = 0x7761726dn;
const GWEI = 10n ** 9n;
const NO_DATA = new Uint8Array(0);
const TYPE_1559 = Uint8Array.of(2);

export interface WarmUpOptions {
  /** The node's sender recovery (its worker thread): the scratch pool's recoveries go there too. */
  recovery: SenderRecovery;
  /** The node's RPC limits (the scratch dispatcher's context). */
  limits: RpcLimits;
  /** Transfers to run through, in batches of 100 (default WARM_UP_TRANSFERS). */
  transfers?: number;
}

export interface WarmUpOutcome {
  transfers: number;
  blocks: number;
  ms: number;
}

/** Runs `transfers` through the accept and build path on a scratch chain; throws if one is refused. */
export async function warmUp(o: WarmUpOptions): Promise<WarmUpOutcome> {
  const started = performance.now();
  const rounds = Math.ceil((o.transfers ?? WARM_UP_TRANSFERS) / BATCH);
  const config: DevChainConfig = {
    kind: 'dev',
    chainId: CHAIN_ID.toString(),
    gasLimit: defaultChainNodeOptions.gasLimit.toString(),
    baseFee: defaultChainNodeOptions.baseFee.toString(),
    accounts: SENDERS,
    mnemonic: defaultChainNodeOptions.mnemonic,
    balance: (10n ** 24n).toString(),
    timestamp: Math.floor(Date.now() / 1000),
  };
  const ctx = await openChain('', config, { ephemeral: true });
  const producer = new BlockProducer(ctx, { blockTime: 1, flashblockInterval: 200, mining: false });
  const filters = new FilterManager(o.limits);
  try {
    // Shaped as the node's pool (node.ts), so that V8 sees the same objects.
    const pool = createTxPool({
      impersonated: () => false,
      common: producer.pending.header.common,
      recovery: { recoverPublicKey: (hash, v, r, s) => o.recovery.recoverPublicKey(hash, v, r, s) },
      state: producer.poolState(),
      baseFee: () => producer.pending.baseFee,
      blockGasLimit: () => producer.pending.header.gasLimit,
      blobBaseFee: () => 1n,
    });
    producer.start(pool);
    const rpc: RpcContext = {
      chain: ctx,
      reader: new LocalChainReader({
        blocks: ctx.blocks,
        flat: ctx.flat,
        nodes: ctx.nodes,
        store: ctx.store,
        pending: () => producer.pending,
      }),
      pool,
      producer,
      filters,
      clientVersion: 'warm-up',
      pendingNulls: false,
      accounts: [],
      limits: o.limits,
    };
    const dispatcher = new Dispatcher({ eth_sendRawTransaction: ethMethods.eth_sendRawTransaction }, rpc);
    const keys = ctx.spec.devAccounts.map((a) => hexToBytes(a.privateKey));
    // Half to fresh accounts, half to the other senders: both of a plain transfer's cases.
    const fresh = Array.from({ length: 4 }, (_, i) => hexToBytes(`0x${'77'.repeat(19)}${i + 10}`));
    const senders = ctx.spec.devAccounts.map((a) => hexToBytes(a.address));
    const perSender = BATCH / SENDERS;
    for (let round = 0; round < rounds; round++) {
      const requests: string[] = [];
      for (let s = 0; s < SENDERS; s++)
        for (let j = 0; j < perSender; j++) {
          const to = j % 2 === 0 ? fresh[(s + j) % fresh.length] : senders[(s + 1) % SENDERS];
          const raw = signedTransfer(keys[s], BigInt(round * perSender + j), to);
          requests.push(
            `{"jsonrpc":"2.0","id":${requests.length},"method":"eth_sendRawTransaction","params":["${raw}"]}`,
          );
        }
      // As the server reads a body: JSON text, parsed, then the dispatcher.
      const answers = (await dispatcher.handle(JSON.parse(`[${requests.join(',')}]`))) as Response[];
      const refused = answers.find((a) => a.error);
      if (refused) throw new Error(`the warm-up's transfer was refused: ${refused.error?.message}`);
      await producer.mine();
      await nextTurn();
    }
    return { transfers: rounds * BATCH, blocks: rounds, ms: Math.round(performance.now() - started) };
  } finally {
    filters.close();
    await producer.stop();
    await ctx.store.close();
  }
}

/** An EIP-1559 transfer of 1 wei, signed (0x-hex of its network encoding). */
function signedTransfer(key: Uint8Array, nonce: bigint, to: Uint8Array): string {
  const fields = [CHAIN_ID, nonce, GWEI, 100n * GWEI, 21_000n, to, 1n, NO_DATA, []];
  const digest = keccak256(concat(TYPE_1559, RLP.encode(fields)));
  const { signature, recid } = secp256k1.ecdsaSign(digest, key);
  const r = minimal(signature.subarray(0, 32));
  const s = minimal(signature.subarray(32, 64));
  return bytesToHex(concat(TYPE_1559, RLP.encode([...fields, recid, r, s])));
}

/** A big-endian integer without its leading zeros (RLP's canonical form). */
function minimal(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
}
