/** Starts the two parts from parsed CLI options. Used by `up`, `chain start` and `serve`. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ChainNode } from '@wharf/chain';
import type { PlatformServer } from '@wharf/platform';
import type { TrustProxy } from '@wharf/platform/settings';
import type { Logger } from 'pino';
import { type RpcLimitFlags, rpcLimitsOf } from './commands/rpcLimitOptions.js';
import { redactUrl } from './flags.js';
import { holdYoungGeneration } from './heapTuning.js';
import { lowerHelperThreads } from './threadPriority.js';

export interface ChainFlags extends RpcLimitFlags {
  host: string;
  port: number;
  dataDir: string;
  /** Undefined: 31337 (a fork: the remote's). */
  chainId?: bigint;
  blockTime: number;
  flashblockInterval: number;
  /** --journal-wait, in ms. */
  journalWait?: number;
  /** --pool-journal-delay, in ms. */
  poolJournalDelay?: number;
  mining: boolean;
  /** --pending-nulls: the block being built with null number and hashes (the spec's wording). */
  pendingNulls?: boolean;
  /** false with the deprecated --no-preconf-receipts: only warned about (decision 0120). */
  preconfReceipts?: boolean;
  gasLimit: bigint;
  baseFee: bigint;
  accounts: number;
  mnemonic: string;
  balance: bigint;
  genesis?: string;
  /** `wharf chain follow --sequencer URL`: follow that sequencer instead of producing blocks. */
  sequencer?: string;
  /** `wharf chain follow`: its flashblock stream (--flashblocks-url), or false (--no-flashblocks). */
  flashblocks?: boolean;
  flashblocksUrl?: string;
  followPoll?: number;
  followBuffer?: number;
  followMaxMessage?: number;
  ephemeral?: boolean;
  /** false with --no-dev-methods. */
  devMethods?: boolean;
  loadState?: string;
  dumpState?: string;
  /** --state FILE: --load-state FILE if it exists, and --dump-state FILE. */
  state?: string;
  /** --fork-url, --fork-block-number, --fork-timeout (ms). */
  forkUrl?: string;
  forkBlockNumber?: bigint;
  forkTimeout?: number;
  /** --state-window: blocks of past state kept; --state-window-memory: MiB of their trie nodes. */
  stateWindow?: number;
  stateWindowMemory?: number;
  /** --state-cache-memory: MiB of the trie on disk's nodes kept in memory. */
  stateCacheMemory?: number;
}

export interface ServeFlags {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** --redis-prefix: prefix of Redis keys and channels. */
  redisPrefix?: string;
  rateLimit: number;
  trustProxy?: TrustProxy;
  /** --outbox-lease: ms a writer owns its push before another instance's relay takes it. */
  outboxLease?: number;
  publicUrl?: string;
  clientRateLimit?: number;
  ipRateLimit?: number;
  adminRateLimit?: number;
  requestTimeout?: number;
  headersTimeout?: number;
  idleTimeout?: number;
  bodyLimit?: number;
  streamsPerSession?: number;
  streamsPerAddress?: number;
  streamBuffer?: number;
  sessionTtl?: number;
  adminToken?: string;
  chainRpc?: string;
  chainId?: bigint;
  webhookBlockPrivate?: boolean;
  webhookRetrySchedule?: number[];
  webhookTimeout?: number;
  webhookLogDays?: number;
  sendLogDays?: number;
}

export async function startChain(
  flags: ChainFlags,
  logger: Logger,
  /** Resolves once the whole process has started (see ChainNodeOptions.started). */
  started?: Promise<unknown>,
): Promise<ChainNode> {
  if (flags.preconfReceipts === false)
    logger.warn(
      '--no-preconf-receipts (WHARF_NO_PRECONF_RECEIPTS) is deprecated and ignored: pre-confirmed receipts now carry the zero hash as blockHash, which ethers v6 accepts; --pending-nulls gives the null shape',
    );
  // Loaded on use: the EVM and the server stack take a second to import, which `wharf project`
  // and `wharf --help` should not pay.
  const { startChainNode } = await import('@wharf/chain');
  // What the start keeps for a moment would double V8's young generation to 32 MB for good.
  const releaseYoungGeneration = holdYoungGeneration();
  const node = await startChainNode({
    host: flags.host,
    port: flags.port,
    dataDir: path.resolve(flags.dataDir),
    chainId: flags.chainId ?? 31337n,
    blockTime: flags.blockTime,
    flashblockInterval: flags.flashblockInterval,
    journalWaitMs: flags.journalWait,
    poolJournalDelayMs: flags.poolJournalDelay,
    mining: flags.mining,
    pendingNulls: flags.pendingNulls === true,
    gasLimit: flags.gasLimit,
    baseFee: flags.baseFee,
    accounts: flags.accounts,
    mnemonic: flags.mnemonic,
    balance: flags.balance,
    genesisPath: flags.genesis,
    ephemeral: flags.ephemeral,
    devMethods: flags.devMethods,
    loadState: flags.loadState ?? (flags.state && fs.existsSync(flags.state) ? flags.state : undefined),
    dumpState: flags.dumpState ?? flags.state,
    limits: rpcLimitsOf(flags),
    ...(flags.forkUrl
      ? { fork: { url: flags.forkUrl, blockNumber: flags.forkBlockNumber, chainId: flags.chainId } }
      : {}),
    forkTimeoutMs: flags.forkTimeout,
    stateWindow: flags.stateWindow,
    stateWindowMemoryBytes:
      flags.stateWindowMemory === undefined ? undefined : flags.stateWindowMemory * 2 ** 20,
    stateCacheMemoryBytes:
      flags.stateCacheMemory === undefined ? undefined : flags.stateCacheMemory * 2 ** 20,
    ...(flags.sequencer
      ? {
          follow: {
            sequencerUrl: flags.sequencer,
            flashblocksUrl: flags.flashblocks === false ? false : flags.flashblocksUrl,
            pollMs: flags.followPoll,
            maxBufferedFlashblocks: flags.followBuffer,
            maxFlashblockBytes: flags.followMaxMessage,
          },
        }
      : {}),
    logger: logger.child({ part: 'chain' }),
    started,
  }).finally(releaseYoungGeneration);
  // Its helper threads (GC, I/O, compaction) now exist: the builder's main thread goes first,
  // and the journal's writer (a flashblock waits for it) keeps the main thread's priority.
  lowerHelperThreads(undefined, undefined, undefined, node.deadlineThreadIds ?? []);
  return node;
}

/** The built web app (packages/app/dist), when it has been built. */
export function webRoot(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return path.join(path.dirname(require.resolve('@wharf/app/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

export async function startPlatform(
  flags: ServeFlags,
  logger: Logger,
): Promise<{ server: PlatformServer; adminToken: string }> {
  const adminToken = flags.adminToken ?? crypto.randomBytes(24).toString('base64url');
  const platformLog = logger.child({ part: 'platform' });
  platformLog.info(
    {
      store: flags.databaseUrl
        ? redactUrl(flags.databaseUrl)
        : path.resolve(flags.dataDir, 'notifications.sqlite'),
      ...(flags.redisUrl ? { redis: redactUrl(flags.redisUrl) } : {}),
    },
    `opening the notifications store (${flags.databaseUrl ? 'PostgreSQL' : 'SQLite'})`,
  );
  const { startPlatformServer } = await import('@wharf/platform');
  const server = await startPlatformServer({
    host: flags.host,
    port: flags.port,
    dataDir: path.resolve(flags.dataDir),
    databaseUrl: flags.databaseUrl,
    redisUrl: flags.redisUrl,
    redisKeyPrefix: flags.redisPrefix,
    rateLimit: flags.rateLimit,
    trustProxy: flags.trustProxy ?? false,
    outboxLeaseMs: flags.outboxLease,
    publicUrl: flags.publicUrl,
    clientRateLimit: flags.clientRateLimit,
    ipRateLimit: flags.ipRateLimit,
    adminRateLimit: flags.adminRateLimit,
    requestTimeoutMs: flags.requestTimeout,
    headersTimeoutMs: flags.headersTimeout,
    idleTimeoutMs: flags.idleTimeout,
    bodyLimitBytes: flags.bodyLimit,
    streamsPerSession: flags.streamsPerSession,
    streamsPerAddress: flags.streamsPerAddress,
    streamBufferBytes: flags.streamBuffer,
    sessionTtlMs: flags.sessionTtl,
    chainRpc: flags.chainRpc,
    chainId: Number(flags.chainId ?? 31337n),
    adminToken,
    webhookBlockPrivate: Boolean(flags.webhookBlockPrivate),
    ...(flags.webhookRetrySchedule ? { webhookRetryScheduleMs: flags.webhookRetrySchedule } : {}),
    ...(flags.webhookTimeout ? { webhookTimeoutMs: flags.webhookTimeout } : {}),
    ...(flags.webhookLogDays ? { webhookLogDays: flags.webhookLogDays } : {}),
    ...(flags.sendLogDays ? { sendLogDays: flags.sendLogDays } : {}),
    webRoot: webRoot(),
    logger: platformLog,
  });
  return { server, adminToken };
}
