/**
 * Composition root of the chain node: the only file that knows every concrete part.
 *
 *   storage (LevelDB) <- state (flat + trie readers, overlays) <- execution (VM, import, seal)
 *        <- txpool (geth rules) <- builder (pending block, seals) <- rpc (HTTP + WebSocket)
 *   storage + state + builder's pending ─> reader (ChainReader: the RPC's one read path) ─> rpc
 *
 * One file (over 400 lines) because it is the composition root: the one place that knows every
 * concrete part (sequencer, follower, fork). Its length is wiring; it holds no rule of its own.
 */
import fs from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import { BlockProducer } from './builder/blockProducer.js';
import { DevControls } from './builder/devControls.js';
import { FlashblockJournal } from './builder/flashblockJournal.js';
import { lateFlashblockLogger } from './builder/lateFlashblocks.js';
import type { ChainConfig, DevChainConfig, GethGenesis } from './chainspec/chainConfig.js';
import { forkConfig } from './execution/forkPoint.js';
import { openChain } from './execution/openChain.js';
import { DEFAULT_LAYER_LIMITS } from './storage/chainStore.js';
import { BlockFollower } from './follower/blockFollower.js';
import { FlashblockFollower } from './follower/flashblockFollower.js';
import { FollowedTxDecoder } from './follower/followedTx.js';
import { devConfigLike, sequencerGenesis } from './follower/followerGenesis.js';
import { forwardedMethods } from './follower/forwardedMethods.js';
import { SequencerClient } from './follower/sequencerClient.js';
import type { ChainContext } from './execution/chainContext.js';
import type { ChainNode, ChainNodeOptions } from './options.js';
import { bytesToHex, hexToBytes, quantity } from './primitives/hex.js';
import { LocalChainReader } from './reader/localChainReader.js';
import { startProcessMetrics } from './processMetrics.js';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { RpcContext } from './rpc/context.js';
import { baseMethods } from './rpc/baseExtensions.js';
import { anvilMethods } from './rpc/anvil.js';
import { debugMethods, traceMethods } from './rpc/debug.js';
import { devAccountSigningMethods } from './rpc/devAccountSigning.js';
import { Dispatcher } from './rpc/dispatch.js';
import { ethMethods } from './rpc/eth.js';
import { configMethods } from './rpc/ethConfig.js';
import { FilterManager } from './rpc/filterManager.js';
import { evmMethods } from './rpc/evm.js';
import { filterMethods } from './rpc/filters.js';
import { FlashblocksStream, streamOptionsOf } from './rpc/flashblocksStream.js';
import { inclusionOf } from './rpc/inclusion.js';
import { hardhatMethods } from './rpc/hardhat.js';
import { netMethods } from './rpc/net.js';
import { FrontCounter, MAX_FRONT_THREADS } from './rpc/frontProtocol.js';
import { ReplicaPublisher, syncedAfter } from './rpc/replicaPublisher.js';
import { startRpcServer } from './rpc/server.js';
import { simulateMethods } from './rpc/simulate.js';
import { subscriptionMethods } from './rpc/subscriptions.js';
import { testingMethods } from './rpc/testing.js';
import { namedTraceMethods } from './rpc/tracers.js';
import { txpoolMethods } from './rpc/txpool.js';
import { web3Methods } from './rpc/web3.js';
import { formatAnvilState, parseAnvilState, StateFileError } from './state/anvilStateFile.js';
import {
  attachJournal,
  createFileTxJournal,
  createTxPool,
  RecoveryThread,
  type TxJournal,
} from './txpool/index.js';

export const CLIENT_VERSION = 'wharf/v0.1.0/node-js';

async function chainConfigOf(o: ChainNodeOptions): Promise<ChainConfig> {
  if (o.genesisPath) {
    const genesis = JSON.parse(await fs.readFile(o.genesisPath, 'utf8')) as GethGenesis;
    return { kind: 'geth', genesis };
  }
  return {
    kind: 'dev',
    chainId: o.chainId.toString(),
    gasLimit: o.gasLimit.toString(),
    baseFee: o.baseFee.toString(),
    accounts: o.accounts,
    mnemonic: o.mnemonic,
    balance: o.balance.toString(),
    timestamp: Math.floor(Date.now() / 1000),
  };
}

/** What the sealed blocks wrote (storage/chainStore.ts): the state diffs against the whole batches. */
/** --ephemeral: the pool keeps no journal either. */
const noTxJournal: TxJournal = {
  load: async () => [],
  append: () => {},
  rotate: async () => {},
  close: async () => {},
};

/** An Anvil state file (plain JSON, or gzipped as anvil_dumpState answers). */
async function readStateFile(path: string) {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (e) {
    throw new StateFileError(`cannot read the state file ${path}: ${(e as Error).message}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new StateFileError(`the state file ${path} is not JSON: ${(e as Error).message}`);
  }
  try {
    return parseAnvilState(json);
  } catch (e) {
    throw new StateFileError(`the state file ${path}: ${(e as Error).message}`);
  }
}

export async function startChainNode(options: ChainNodeOptions): Promise<ChainNode> {
  const log = options.logger;
  let ownStart: () => void = () => {};
  const started = options.started ?? new Promise<void>((resolve) => (ownStart = resolve));
  // A follower opens the sequencer's chain (its genesis checked below) and never seals.
  const sequencer = options.follow ? new SequencerClient(options.follow.sequencerUrl) : undefined;
  const sequencerGenesisBlock = sequencer ? await sequencerGenesis(sequencer) : undefined;
  if (options.follow) options = { ...options, mining: false };
  const fresh =
    sequencerGenesisBlock && !options.genesisPath
      ? devConfigLike(sequencerGenesisBlock, options)
      : await chainConfigOf(options);
  const forkTimeoutMs = options.forkTimeoutMs ?? 10_000;
  const fork = options.fork;
  // A fork asks the remote for its config only when the data directory is new.
  const forkFresh = fork
    ? () =>
        forkConfig(
          { url: fork.url, blockNumber: fork.blockNumber, timeoutMs: forkTimeoutMs },
          fresh as DevChainConfig,
          fork.chainId,
        )
    : undefined;
  const ephemeral = options.ephemeral ?? false;
  // A state file is read before anything starts: a bad one stops the start, naming what is wrong.
  const loadState = options.loadState ? await readStateFile(options.loadState) : undefined;
  const ctx = await openChain(options.dataDir, forkFresh ?? fresh, {
    ephemeral,
    fork: { url: fork?.url, timeoutMs: forkTimeoutMs },
    layers: {
      ...DEFAULT_LAYER_LIMITS,
      window: options.stateWindow ?? DEFAULT_LAYER_LIMITS.window,
      maxBytes: options.stateWindowMemoryBytes ?? DEFAULT_LAYER_LIMITS.maxBytes,
      cleanBytes: options.stateCacheMemoryBytes ?? DEFAULT_LAYER_LIMITS.cleanBytes,
    },
    requireSame: (stored) => {
      const storedFork = stored.kind === 'dev' ? stored.fork : undefined;
      if (fork && !storedFork)
        return 'the data directory holds a chain that is not a fork: use another --data-dir for --fork-url';
      if (storedFork) return undefined; // a fork keeps its own chain id (the remote's, or the one given)
      if (stored.kind === 'dev' && fresh.kind === 'dev' && stored.chainId !== fresh.chainId)
        return `the data directory holds chain id ${stored.chainId}, not ${fresh.chainId}: use another --data-dir`;
      if (fresh.kind === 'geth' && JSON.stringify(stored) !== JSON.stringify(fresh))
        return 'the data directory holds another chain than --genesis names: use another --data-dir';
      return undefined;
    },
  });
  const { spec } = ctx;
  if (sequencerGenesisBlock) {
    const genesis = await ctx.blocks.byNumber(0n);
    const ours = genesis ? bytesToHex(genesis.hash()) : undefined;
    if (ours !== sequencerGenesisBlock.hash) {
      await ctx.store.close();
      throw new Error(
        `this node's genesis ${ours} is not the sequencer's ${sequencerGenesisBlock.hash}: give the follower the sequencer's --accounts, --mnemonic and --balance (or its --genesis file)`,
      );
    }
  }
  log?.info(
    { head: Number(ctx.blocks.head.header.number), chainId: Number(spec.chainId) },
    'opened the chain',
  );

  // In memory (--ephemeral) nothing survives a stop anyway, and a follower pre-confirms
  // nothing of its own: no journal.
  const journal =
    ephemeral || options.follow
      ? undefined
      : await FlashblockJournal.open(ctx.store.bodiesDir ?? join(options.dataDir, 'chain-bodies'), {
          waitMs: options.journalWaitMs,
          // Recovery reads the journal from the newest block on disk (decision 0521).
          from: await ctx.store.journalStart(),
          legacyPath: join(options.dataDir, 'flashblocks.journal'),
        });
  const producer = new BlockProducer(ctx, {
    blockTime: options.blockTime,
    flashblockInterval: options.flashblockInterval,
    mining: options.mining,
    journal,
    onError: (e) => log?.error({ err: e }, 'block production failed'),
    onLate: lateFlashblockLogger(log, Date.now, started),
    following: options.follow !== undefined,
    onDropped: (d) =>
      log?.warn(
        { block: Number(d.block), dropped: d.count, reason: d.reason },
        "dropped the sequencer's flashblocks",
      ),
  });
  // The front threads' replicas hear of a flashblock or a seal before anything is sent about it:
  // these listeners come first (rpc/replicaPublisher.ts).
  const replicas = new ReplicaPublisher({
    head: () => ctx.blocks.head,
    pendingState: () => producer.pending.state,
    constants: {
      chainId: quantity(spec.chainId),
      netVersion: spec.chainId.toString(),
      clientVersion: CLIENT_VERSION,
    },
  });
  producer.onSealedChanges((block, changed) => replicas.sealedChanges(block, changed));
  producer.onSealed(() => replicas.sync());
  producer.onFlashblock(() => replicas.sync());
  const flashblocks = new FlashblocksStream(options.limits.wsMaxBufferedBytes);
  producer.onFlashblockBuilt((s) => flashblocks.prepare(s));
  producer.onFlashblock((s) => flashblocks.publish(s));
  // A block interrupted by a crash is finished with its pre-confirmed transactions, in order.
  const recovered = await producer.recover();
  if (recovered.sealed)
    log?.info(
      { block: Number(recovered.sealed.header.number), transactions: recovered.replayed },
      'sealed the block the flashblock journal held',
    );
  else flashblocks.publish(producer.pending);
  // Signature recovery, the largest per-submission cost, runs on the second core.
  const recovery = RecoveryThread.start();
  let dev: DevControls | undefined;
  const pool = createTxPool({
    // Senders that send without a key (anvil_impersonateAccount).
    impersonated: (address) => dev?.impersonating(address) ?? false,
    common: producer.pending.header.common,
    recovery,
    state: producer.poolState(),
    baseFee: () => producer.pending.baseFee,
    blockGasLimit: () => producer.pending.header.gasLimit,
    // Blob transactions (imported chains with Cancun only) must pay the pending block's blob fee.
    blobBaseFee: () => {
      const h = producer.pending.header;
      return h.common.isActivatedEIP(4844) ? h.getBlobGasPrice() : 1n;
    },
  });
  // Pooled transactions not yet pre-confirmed survive a restart too.
  // A failed journal write (a full disk) is logged and counted; the node keeps serving.
  const journalErrors = new Counter({
    name: 'wharf_txpool_journal_errors_total',
    help: 'Failed writes of the pool journal (the node kept serving).',
    registers: [producer.metrics.registry],
  });
  // What the sealed blocks wrote to the database (chainStore.ts counts it), read when scraped.
  const written = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [producer.metrics.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  written(
    'wharf_rpc_front_thread_connections_total',
    'Connections the front threads (--rpc-threads) accepted.',
    () => replicas.count(FrontCounter.Accepted),
  );
  written(
    'wharf_rpc_front_thread_answers_total',
    'Requests the front threads answered from their read replicas, without the main thread.',
    () => replicas.count(FrontCounter.Answered),
  );
  written(
    'wharf_txpool_recoveries_on_main_thread_total',
    'Sender recoveries the main thread took back from the recovery worker while it would have waited for them (decision 0450).',
    () => recovery.stolen,
  );
  written(
    'wharf_state_diff_bytes_total',
    "Bytes of the sealed blocks' state diffs (flat-state keys and values, code).",
    () => ctx.store.written.stateDiffBytes,
  );
  written(
    'wharf_block_batch_bytes_total',
    "Bytes of the sealed blocks' database batches (keys and values; trie nodes are written apart, wharf_state_trie_flush_bytes_total).",
    () => ctx.store.written.batchBytes,
  );
  written(
    'wharf_block_body_bytes_total',
    'Of those batches: the blocks, receipts, senders and indexes (everything but state).',
    () => ctx.store.written.blockBytes,
  );
  written(
    'wharf_block_body_file_bytes_total',
    "Bytes of the sealed blocks' bodies, receipts and senders appended to the body files, written once (decision 0491); their batches hold references.",
    () => ctx.store.written.bodyFileBytes,
  );
  written(
    'wharf_block_bodies_in_journal_total',
    'Sealed blocks whose body is their flashblock journal records: the body files hold their header, receipts and senders, not their transactions again (decision 0521).',
    () => ctx.store.written.bodiesInJournal,
  );
  written(
    'wharf_state_diff_record_bytes_total',
    "Of those batches: the blocks' forward state diffs (what rebuilds the trie's diff layers at start).",
    () => ctx.store.written.diffRecordBytes,
  );
  written(
    'wharf_state_trie_flush_bytes_total',
    'Bytes of trie nodes (keys and values) the disk layer wrote in its merged flushes (decision 0211).',
    () => ctx.store.written.trieFlushBytes,
  );
  written('wharf_state_trie_flushes_total', "The disk layer's flushes.", () => ctx.store.written.flushes);
  written(
    'wharf_state_leaf_flush_bytes_total',
    "Bytes of the disk layer's leaf runs its flushes wrote (whole files): what its nodes below the written depth are made from (decisions 0650, 0670).",
    () => ctx.store.written.leafFlushBytes,
  );
  written(
    'wharf_state_leaf_merge_bytes_total',
    'Bytes of the leaf runs written by merging runs of about the same size (decision 0670).',
    () => ctx.store.written.leafMergeBytes,
  );
  written(
    'wharf_state_nodes_made_total',
    "The disk layer's trie nodes made from its leaves when a read needed one (decision 0650): one read of a block or two of each leaf run (0670).",
    () => ctx.store.readKeys.nodesMade,
  );
  written(
    'wharf_state_nodes_made_on_loop_total',
    'Of those, the nodes made on the event loop rather than in the subtree worker (decision 0680): every one with --ephemeral, and all after a worker failed.',
    () => ctx.store.subtrees.made.here,
  );
  const makeWait = new Histogram({
    name: 'wharf_state_make_wait_seconds',
    help: "Time from a turn's nodes to make being sent to the subtree worker to their answer (decision 0680): what a read of such a node waits, the builder's staging included.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [producer.metrics.registry],
  });
  ctx.store.subtrees.onAnswer = (seconds) => makeWait.observe(seconds);
  written(
    'wharf_state_leaves_read_total',
    'Leaves those range reads returned.',
    () => ctx.store.readKeys.leavesRead,
  );
  written(
    'wharf_leveldb_reads_total',
    'LevelDB getMany calls of the chain store: the reads asked for in one turn share one (decision 0431).',
    () => ctx.store.reads,
  );
  written(
    'wharf_state_cache_hits_total',
    'Trie nodes the diff layers did not hold that the clean cache had (--state-cache-memory): reads LevelDB was spared.',
    () => ctx.store.cleanNodes.hits,
  );
  written(
    'wharf_state_cache_misses_total',
    'Trie nodes neither the diff layers nor the clean cache held: read from LevelDB.',
    () => ctx.store.cleanNodes.misses,
  );
  new Counter({
    name: 'wharf_leveldb_read_keys_total',
    help: 'Keys those getMany calls asked LevelDB for, by kind (account, storage: the flat state; trie_node; other).',
    labelNames: ['kind'],
    registers: [producer.metrics.registry],
    collect() {
      this.reset();
      const k = ctx.store.readKeys;
      this.inc({ kind: 'account' }, k.account);
      this.inc({ kind: 'storage' }, k.storage);
      this.inc({ kind: 'trie_node' }, k.trieNode);
      this.inc({ kind: 'other' }, k.other);
    },
  });
  written(
    'wharf_flashblock_journal_bytes_total',
    'Bytes of the records appended to the flashblock journal (its share of the disk writes).',
    () => journal?.bytesWritten ?? 0,
  );
  new Gauge({
    name: 'wharf_rpc_front_thread_open_connections',
    help: 'Connections each front thread (--rpc-threads) holds open now, by thread (0, 1, ...).',
    labelNames: ['thread'],
    registers: [producer.metrics.registry],
    collect() {
      this.reset();
      for (let i = 0; i < MAX_FRONT_THREADS; i++) {
        const n = replicas.open(i);
        if (n >= 0) this.set({ thread: String(i) }, n);
      }
    },
  });
  new Gauge({
    name: 'wharf_state_layers_bytes',
    help: "Bytes of trie nodes held in memory: the diff layers of --state-window blocks and the disk layer's unwritten buffer.",
    registers: [producer.metrics.registry],
    collect() {
      this.set(ctx.store.layers.memoryBytes);
    },
  });
  new Gauge({
    name: 'wharf_state_cache_bytes',
    help: 'Bytes of trie nodes of the disk layer held by the clean cache (--state-cache-memory).',
    registers: [producer.metrics.registry],
    collect() {
      this.set(ctx.store.cleanNodes.bytes);
    },
  });
  const onJournalError = (err: Error) => {
    journalErrors.inc();
    log?.error({ err }, 'txpool journal write failed');
  };
  const poolJournal = await attachJournal(
    pool,
    ephemeral
      ? noTxJournal
      : createFileTxJournal(
          join(options.dataDir, 'txpool.journal'),
          onJournalError,
          options.poolJournalDelayMs,
        ),
    { onError: onJournalError, preconfirmationsJournaled: () => producer.preconfirmationsJournaled },
  );
  const logLevel = log?.level;
  const devControls = new DevControls({
    ctx,
    producer,
    pool,
    rotatePoolJournal: () => poolJournal.rotate(),
    devBalance: options.balance,
    setLogging: (on) => {
      if (log && logLevel) log.level = on ? logLevel : 'silent';
    },
  });
  // --no-dev-methods: no test methods and no impersonation (the RPC answers -32601).
  const devMethods = options.devMethods !== false;
  if (devMethods) dev = devControls;
  if (ctx.fork && ctx.blocks.head.header.number === ctx.fork.number) {
    // A new fork: the dev accounts get their balance in the first block on top, as Anvil's do.
    await devControls.fundForkedDevAccounts();
    log?.info({ url: ctx.fork.source.url, block: Number(ctx.fork.number) }, 'forked');
  }
  if (loadState) {
    // The prepared world is sealed in a block of its own before anything else runs.
    await devControls.loadState(loadState);
    await devControls.mine();
    log?.info({ accounts: loadState.accounts.size, file: options.loadState }, 'loaded the state file');
  }
  const filters = new FilterManager(options.limits);
  producer.onSealed((block, txs) =>
    filters.onSealed(
      block,
      txs.map((t) => t.receipt),
    ),
  );
  pool.onAdded((t) => filters.onPendingTx(t.hash));
  // Log filters to `pending` take pre-confirmed logs as flashblocks are shown.
  producer.onFlashblock((s) => filters.onFlashblock(s, options.pendingNulls ? 'nulls' : 'base'));

  // The one read path of the RPC: the pending snapshot, then sealed blocks and past tries.
  const reader = new LocalChainReader({
    blocks: ctx.blocks,
    flat: ctx.flat,
    nodes: ctx.nodes,
    store: ctx.store,
    pending: () => producer.pending,
    fork: ctx.fork,
  });
  const rpc: RpcContext = {
    chain: ctx,
    reader,
    pool,
    producer,
    filters,
    clientVersion: CLIENT_VERSION,
    pendingNulls: options.pendingNulls,
    accounts: spec.devAccounts.map((a) => hexToBytes(a.address)),
    dev: devMethods ? devControls : undefined,
    limits: options.limits,
    log: (e) => log?.error({ err: e }, 'rpc handler failed'),
  };
  // Watches flashblocks and seals from the start: the receipt hold measures their interval.
  inclusionOf(rpc);
  const dispatcher = new Dispatcher(
    {
      ...web3Methods,
      ...netMethods,
      ...ethMethods,
      ...baseMethods,
      ...configMethods,
      ...simulateMethods,
      ...filterMethods,
      ...devAccountSigningMethods,
      ...subscriptionMethods,
      ...txpoolMethods,
      ...debugMethods,
      ...traceMethods,
      ...namedTraceMethods(traceMethods),
      ...testingMethods,
      ...syncedAfter({ ...evmMethods, ...anvilMethods, ...hardhatMethods }, replicas),
      // A follower's writes go to the sequencer.
      ...(sequencer ? forwardedMethods(sequencer) : {}),
    },
    rpc,
  );
  const processMetrics = startProcessMetrics(producer.metrics.registry);
  let server: Awaited<ReturnType<typeof startRpcServer>>;
  try {
    server = await startRpcServer(
      dispatcher,
      options.host,
      options.port,
      (path, ws, query) => {
        if (path !== '/flashblocks') return false;
        const opts = streamOptionsOf(query);
        if ('error' in opts) ws.close(1008, opts.error);
        else flashblocks.attach(ws, opts);
        return true;
      },
      (path) =>
        path === '/metrics'
          ? {
              type: producer.metrics.registry.contentType,
              // The follower's stream counts (node.ts startFollowing) follow the registry's text.
              body: producer.metrics.registry.metrics().then((text) => text + (following?.metrics() ?? '')),
            }
          : undefined,
      options.limits,
      {
        count: options.limits.threads,
        publisher: replicas,
        onError: (message) => log?.warn(message),
      },
    );
  } catch (e) {
    processMetrics.stop();
    await producer.stop();
    await poolJournal.stop();
    await recovery.close();
    await ctx.store.close();
    throw e;
  }
  // Long executions (eth_call, traces) take their turns in the request queue.
  rpc.scheduler = server.scheduler;
  // While a flashblock is due, requests wait in their sockets: the thread is the builder's.
  producer.onBusy((busy, nextAt) => server.holdInput(busy, nextAt));
  producer.start(pool);
  const following = sequencer ? startFollowing(ctx, sequencer, producer, recovery, options, log) : undefined;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  log?.info(
    { url: `http://${hostForUrl}:${server.port}`, frontThreads: server.threads },
    'JSON-RPC listening (HTTP and WebSocket)',
  );
  ownStart();

  // Submissions wait for the recovery thread: it keeps the main thread's priority (decision 0342).
  const recoveryTid = await recovery.threadId();
  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${server.port}`,
    wsUrl: `ws://${hostForUrl}:${server.port}`,
    chainId: spec.chainId,
    accounts: spec.devAccounts,
    // The front threads serve every connection (decision 0400): at nice +10 a read would wait
    // for a CPU behind any other process.
    deadlineThreadIds: [journal?.threadId, recoveryTid, ...server.threadIds].filter(
      (t): t is number => t !== undefined,
    ),
    close: () => {
      closed ??= (async () => {
        await following?.stop();
        await server.close();
        processMetrics.stop();
        flashblocks.close();
        // --dump-state: the world as it is at the stop, pending changes included (Anvil's JSON).
        if (options.dumpState) {
          try {
            const state = formatAnvilState(await devControls.dumpState());
            await fs.writeFile(options.dumpState, JSON.stringify(state));
            log?.info({ file: options.dumpState }, 'dumped the state');
          } catch (e) {
            log?.error({ err: e, file: options.dumpState }, 'could not dump the state');
          }
        }
        await producer.stop();
        await poolJournal.stop();
        await recovery.close();
        filters.close();
        await ctx.store.close();
      })();
      return closed;
    },
  };
}

/** Defaults of ChainNodeOptions.follow.maxBufferedFlashblocks and maxFlashblockBytes. */
const MAX_BUFFERED_FLASHBLOCKS = 64;
const MAX_FLASHBLOCK_BYTES = 16 * 1024 * 1024;
/**
 * How long the next block may be missing while flashblocks stream before it is fetched (ms):
 * fetching it too is double work on a loaded follower, and a stream that cannot seal it says
 * so at once (BlockFollower.nudge).
 */
const SEALED_BLOCK_GRACE_MS = 1_000;
/** The stream counts as live while a message came within this (ms; one comes every interval). */
const STREAM_LIVE_MS = 1_000;

/**
 * A follower's two inputs: the sequencer's sealed blocks (polled) and its flashblocks (streamed),
 * both through the producer. The stream's URL defaults to the sequencer's `/flashblocks`.
 */
function startFollowing(
  ctx: ChainContext,
  sequencer: SequencerClient,
  producer: BlockProducer,
  recovery: RecoveryThread,
  options: ChainNodeOptions,
  log: Logger | undefined,
): { stop: () => Promise<void>; metrics: () => string } {
  const follow = options.follow!;
  const decoder = new FollowedTxDecoder(producer.pending.header.common, recovery);
  let stream: FlashblockFollower | undefined;
  const blocks = new BlockFollower(ctx, sequencer, producer, {
    pollMs: follow.pollMs ?? 100,
    decoder,
    streaming: () => (stream?.connected ?? false) && Date.now() - stream!.lastMessageAt < STREAM_LIVE_MS,
    graceMs: SEALED_BLOCK_GRACE_MS,
    onError: (e) => log?.warn({ err: e }, 'following the sequencer failed; retrying'),
    onImported: () => stream?.headMoved(),
  });
  const url = follow.flashblocksUrl ?? flashblocksUrlOf(sequencer.url);
  if (url !== false) {
    stream = new FlashblockFollower(producer, decoder, {
      url,
      maxBuffered: follow.maxBufferedFlashblocks ?? MAX_BUFFERED_FLASHBLOCKS,
      maxMessageBytes: follow.maxFlashblockBytes ?? MAX_FLASHBLOCK_BYTES,
      head: () => ctx.blocks.head.header.number,
      behind: () => blocks.nudge(),
      onError: (e) => log?.warn({ err: e }, "a flashblock of the sequencer's stream was refused"),
      onConnection: (state, detail) =>
        state === 'open'
          ? log?.info({ url }, 'following the flashblock stream')
          : log?.warn({ url, detail }, 'the flashblock stream dropped; reconnecting'),
    });
    stream.start();
  }
  blocks.start();
  return {
    stop: async () => {
      await stream?.stop();
      await blocks.stop();
    },
    metrics: () => {
      const c = stream?.counts;
      if (!c) return '';
      return `${[
        '# HELP wharf_follower_stream_connections_total Times the flashblock stream was opened.',
        '# TYPE wharf_follower_stream_connections_total counter',
        `wharf_follower_stream_connections_total ${c.connections}`,
        '# HELP wharf_follower_stream_connected Whether the flashblock stream is open now.',
        '# TYPE wharf_follower_stream_connected gauge',
        `wharf_follower_stream_connected ${stream?.connected ? 1 : 0}`,
        '# HELP wharf_follower_stream_malformed_total Stream messages refused as not a flashblock (logged).',
        '# TYPE wharf_follower_stream_malformed_total counter',
        `wharf_follower_stream_malformed_total ${c.malformed}`,
        '# HELP wharf_follower_stream_buffer_dropped_total Flashblocks of blocks not imported yet dropped because the buffer was full.',
        '# TYPE wharf_follower_stream_buffer_dropped_total counter',
        `wharf_follower_stream_buffer_dropped_total ${c.bufferDropped}`,
      ].join('\n')}\n`;
    },
  };
}

/** ws(s)://host/flashblocks for the sequencer's http(s) RPC URL. */
function flashblocksUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/flashblocks`;
  u.search = '';
  return u.toString();
}
