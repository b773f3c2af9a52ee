/**
 * The node's only database: blocks, receipts, indexes, latest flat state and the state trie,
 * in LevelDB under <dataDir>/chain. Every seal is ONE atomic batch (block + receipts + indexes +
 * flat-state changes + the block's forward state diff + head pointer), so a crash at any moment
 * leaves the previous head or the new one, never half of a block.
 *
 * Trie nodes are not in that batch: they are keyed by path and kept in memory as the newest
 * blocks' diff layers over one trie on disk (pathLayers.ts), written in large merged batches
 * behind the blocks; at start the forward diffs of the blocks past that trie rebuild the layers
 * (execution/rebuildLayers.ts). Decision: docs/decisions/0211-path-keyed-trie-storage.md.
 * The trie on disk keeps only its top nodes; deeper ones are made from its leaves, which are
 * sorted run files of their own (hashedState.ts, leafRuns.ts; decisions 0650, 0670).
 *
 * Write-behind: `writeBlock` makes the block readable through this store at once (an in-memory
 * overlay of its keys) and writes the batch in the background, blocks strictly in order; the
 * returned promise settles when the batch is on disk. Under load a synced batch waits hundreds
 * of milliseconds on LevelDB (compactions): the builder must not. What is not yet on disk is
 * still in the flashblock journal (builder/), so a crash loses nothing.
 *
 * Consumers: state/ (flat and trie readers), execution/ and builder/ (writeBlock), rpc/ via the
 * chain view in node.ts.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AbstractLevel } from 'abstract-level';
import { MemoryLevel } from 'memory-level';
import { RLP } from '@ethereumjs/rlp';
import { createAccountFromRLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { concat, u64 } from '../primitives/hex.js';
import { fullAccount, slimAccount } from './flatAccount.js';
import { keys, trieNodeKey } from './keys.js';
import { compactReceiptList } from './receiptCodec.js';
import { decodeTxPosition, encodeTxPosition } from './txIndex.js';
import { BodyFiles, isBodyRef, shellRef } from './bodyFiles.js';
import { shellOf } from './journalBody.js';
import { blockTxsOf, type JournalPosition, type JournalRange } from './journalRecords.js';
import { CleanNodes } from './cleanNodes.js';
import { type Flush, fromLatin1, type LayerLimits, latin1, PathLayers, sameHash } from './pathLayers.js';
import {
  adoptTrieKeys,
  finishTrieReset,
  isTrieKey,
  LEAVES_IN_LEVELDB,
  LEAVES_IN_RUNS,
  openLevel,
  trieResetValue,
} from './trieDatabase.js';
import { LeafRuns, type NewRun } from './leafRuns.js';
import { SubtreeMaker } from './subtreeMaker.js';
import type { PathNode } from './pathNodes.js';
import {
  FULL_FLUSH_EVERY,
  isStoredDepth,
  isWrittenDepth,
  LeafChanges,
  mayBeStale,
  pathLengthOfName,
} from './hashedState.js';
import { trieLeaves } from '../trie/leaves.js';
import { EMPTY_TRIE_ROOT } from '../trie/merkleTrie.js';
import type { TrieNodeStore } from '../trie/types.js';

export type Bytes = Uint8Array;

/** What one sealed block writes. Values in `accounts` null = deleted; empty storage value = zero. */
export interface BlockWrite {
  hash: Bytes;
  number: bigint;
  rlp: Bytes;
  receipts: Bytes;
  senders: Bytes;
  txHashes: Bytes[];
  accounts: Map<string, { address: Bytes; rlp: Bytes | null }>;
  /** Accounts whose every stored slot is dropped before `storage` is applied. */
  clearedStorage: Bytes[];
  storage: { address: Bytes; slot: Bytes; value: Bytes }[];
  code: { hash: Bytes; code: Bytes }[];
  /** The block's new trie nodes, by path: its diff layer (pathLayers.ts), not in the batch. */
  nodes: PathNode[];
  /**
   * Where the block's flashblock records are in the journal (built in flashblocks): its body is
   * kept as them (decision 0521), and recovery reads the journal from there after a crash.
   */
  journal?: JournalRange;
}

/** What the node keeps of past state: `--state-window` and how the disk layer is written. */
export const DEFAULT_LAYER_LIMITS: LayerLimits = {
  window: 128,
  // Counted as the process holds them (encodings copied per layer, ~200 bytes of bookkeeping a
  // node, pathLayers.ts); the disk layer's unwritten buffer (flushBytes) comes on top. At 1,000
  // transfers/s a block's layer is ~1-2.5 MB: ~13-30 blocks of past state (docs/perf/2026-11-27-storage.md).
  maxBytes: 32 << 20,
  // A flush is one LevelDB batch: large enough that the top of the trie, which every block
  // rewrites, reaches the disk once per many blocks; small enough to write in a second or two.
  // 32 MiB, not 16: a quarter fewer trie bytes and ~45% less of LevelDB's compaction at 600-1,000
  // transfers/s over 5-10 minutes (decision 0492).
  flushBytes: 32 << 20,
  flushBlocks: 64,
  // The disk layer's nodes kept in memory besides (decision 0471): ~two thirds of the builder's
  // trie reads after minute 3 at 600 transfers/s, filled in the first minutes, flat after.
  cleanBytes: 32 << 20,
};

/** A past block whose state this node no longer keeps (older than `--state-window`). */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
}

type Op = { type: 'put'; key: Bytes; value: Bytes } | { type: 'del'; key: Bytes };

/** The overlay's key for a database key (latin1: one char per byte, cheap to build). */
const overlayKey = (key: Bytes) => Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
const STORAGE = 'o'.charCodeAt(0);
const ACCOUNT_NODE = 'A'.charCodeAt(0);
const STORAGE_NODE = 'S'.charCodeAt(0);
/** `fromOverlay`: the unwritten blocks do not have the key. */
const MISS = Symbol('miss');
/**
 * Reads go through one explicit LevelDB snapshot, taken again each time a batch lands. Without
 * one, every get and getMany takes an implicit snapshot on the calling (main) thread, which locks
 * LevelDB's database mutex; LevelDB 1.20 holds that mutex while it deletes obsolete table files
 * after a compaction (a directory listing, unmaps, unlinks, log lines), and flashblocks would wait
 * behind LevelDB's housekeeping (docs/decisions/0015-one-explicit-leveldb-snapshot.md).
 */
type Db = AbstractLevel<any, Bytes, Bytes>;
type ReadView = ReturnType<Db['snapshot']>;

/** Reads waiting for one LevelDB `getMany` (fromDb). */
interface Gathered {
  keys: Bytes[];
  waiting: {
    from: number;
    to: number;
    resolve: (v: (Bytes | undefined)[]) => void;
    reject: (e: unknown) => void;
  }[];
}

/**
 * One LevelDB database, the snapshot reads see of it, and the reads gathered for it. On disk the
 * chain's keys and the trie's are two databases (trieDatabase.ts, decision 0540); in memory one.
 */
interface Part {
  db: Db;
  view: ReadView;
  gathered?: Gathered;
}

/** Keys of a block's batch that are not state: block, receipts, senders, indexes, head. */
const BLOCK_PREFIXES = new Set([...'brstTnH'].map((c) => c.charCodeAt(0)));
/** Keys whose value may be a reference into the body files: block, receipts, senders, forward diff. */
const BODY_PREFIXES = new Set([...'brsD'].map((c) => c.charCodeAt(0)));
/** Bodies (block + receipts + senders) of at least this many bytes go to the body files. */
const BODY_FILE_MIN_BYTES = 16 * 1024;
/** A body key's part in the body files' append (writeBlock). */
const BODY_INDEX: Record<number, number> = Object.fromEntries([...'brs'].map((c, i) => [c.charCodeAt(0), i]));

/** Operations added to a block's batch between two turns of the event loop. */
const BATCH_SLICE = 1024;

export class ChainStore {
  /** Keys of blocks handed to writeBlock and not yet on disk: value, or null (deleted). */
  private readonly unwritten = new Map<string, Bytes | null>();
  /** Accounts (latin1 of the address) whose storage an unwritten block clears, with a count. */
  private readonly cleared = new Map<string, number>();
  /** The last batch in the write queue. */
  private writing: Promise<void> = Promise.resolve();
  /** A batch failed: nothing later may be written on top of the gap. */
  private failure?: Error;

  /**
   * What the sealed blocks handed to writeBlock wrote: their state diffs (flat-state keys and
   * values, code) and their whole batches (keys and values), in bytes. Against the disk's own
   * count of bytes written, the write amplification (bench/preconf.mjs).
   */
  readonly written = {
    blocks: 0,
    stateDiffBytes: 0,
    batchBytes: 0,
    /** Of batchBytes: the block, receipts, senders and indexes (not state). */
    blockBytes: 0,
    /** Of batchBytes: the forward state diff records (keys.stateDiff). */
    diffRecordBytes: 0,
    /** Block bodies, receipts and senders appended to the body files (not in batchBytes: decision 0491). */
    bodyFileBytes: 0,
    /** Blocks whose body is their flashblock journal records: the body files hold their shells (decision 0521). */
    bodiesInJournal: 0,
    /** Trie nodes written by the disk layer's flushes (keys and values). */
    trieFlushBytes: 0,
    /** The disk layer's leaf runs written by its flushes (leafRuns.ts: whole files). */
    leafFlushBytes: 0,
    /** The leaf runs written by merging runs (leafRuns.ts). */
    leafMergeBytes: 0,
    flushes: 0,
  };

  /** The newest blocks' trie nodes over the trie on disk. */
  readonly layers: PathLayers;
  /** Nodes of the trie on disk kept in memory: what the flushes wrote and what was read. */
  readonly cleanNodes: CleanNodes;
  /** A landed flush's nodes going into the clean cache (keepFlushed). */
  private keeping: Promise<void> = Promise.resolve();
  /** LevelDB `getMany` calls issued so far (fromDb: each may serve several readers). */
  reads = 0;
  /**
   * Keys those calls asked for, by kind: flat accounts, flat slots, trie nodes, the rest; and the
   * trie nodes made from the disk layer's leaves (hashedState.ts), with the leaves they read.
   */
  readonly readKeys = { account: 0, storage: 0, trieNode: 0, other: 0, nodesMade: 0, leavesRead: 0 };
  /**
   * The trie's database is of the format before decision 0650 (every node stored, no leaves):
   * every node is read from it, until `convertTrieFormat` has run (openChain, before anything
   * else reads or writes the state).
   */
  private deepNodesStored = false;
  /** keys.stateLayer as stored: undefined until the first block is written. */
  private stateStart: bigint | undefined;
  /**
   * The database holds transaction-index entries written before decision 0520 (keys.oldTxIndex,
   * the whole hash): a lookup the short key misses asks for the long one too.
   */
  private oldTxIndex = false;

  /** The chain's database: blocks' references, indexes, flat state, forward diffs, head. */
  private readonly main: Part;
  /** The trie's: nodes by path and keys.stateLayer (the same Part as `main` in memory). */
  private readonly trie: Part;
  /** A merge of leaf runs in progress (maybeMerge): one at a time. */
  private merging?: Promise<void>;

  /**
   * A fork keeps deletions of the flat state as empty values (tombstones): a missing key there
   * means "not written since the fork, ask the remote", so a slot set to zero or an account
   * deleted must stay visible as such. Set by openChain for forks.
   */
  tombstones = false;
  /** Makes the disk layer's nodes from the leaf runs, in a worker (subtreeMaker.ts). */
  readonly subtrees: SubtreeMaker;

  private constructor(
    db: Db,
    limits: LayerLimits,
    /** The disk layer's leaves (leafRuns.ts). */
    private readonly leafRuns: LeafRuns,
    /** Where the blocks' bodies go (bodyFiles.ts); none in memory: LevelDB keeps them. */
    private readonly bodies?: BodyFiles,
    trieDb?: Db,
  ) {
    this.main = { db, view: db.snapshot() };
    this.trie = trieDb ? { db: trieDb, view: trieDb.snapshot() } : this.main;
    this.layers = new PathLayers(limits);
    this.cleanNodes = new CleanNodes(limits.cleanBytes ?? 0);
    this.subtrees = new SubtreeMaker(leafRuns);
  }

  /** A store in memory only (`--ephemeral`, as Anvil's default): gone when the node stops. */
  static async openInMemory(limits: LayerLimits = DEFAULT_LAYER_LIMITS): Promise<ChainStore> {
    const db = new MemoryLevel<Bytes, Bytes>({ keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    const store = new ChainStore(db as unknown as Db, limits, await LeafRuns.open(undefined, undefined));
    await store.loadStateStart();
    return store;
  }

  static async open(dir: string, limits: LayerLimits = DEFAULT_LAYER_LIMITS): Promise<ChainStore> {
    const db = await openLevel(dir, 'chain database');
    let trie: Db | undefined;
    let bodies: BodyFiles | undefined;
    let leafRuns: LeafRuns;
    try {
      // Beside LevelDB's folder, not in it: LevelDB owns the files of its folder.
      trie = await openLevel(`${dir}-trie`, 'state trie database');
      await adoptTrieKeys(db, trie);
      bodies = await BodyFiles.open(`${dir}-bodies`);
      leafRuns = await LeafRuns.open(`${dir}-leaves`, await trie.get(keys.leafRuns));
    } catch (e) {
      await bodies?.close();
      await trie?.close();
      await db.close();
      throw e;
    }
    const store = new ChainStore(db, limits, leafRuns, bodies, trie);
    await store.loadStateStart();
    return store;
  }

  private async loadStateStart(): Promise<void> {
    this.oldTxIndex = await this.hasPrefix(keys.oldTxIndex(new Uint8Array(0)));
    const v = await this.trie.db.get(keys.stateLayer);
    this.stateStart = v ? Buffer.from(v).readBigUInt64BE() : undefined;
    const format = (await this.trie.db.get(keys.trieFormat))?.[0];
    this.deepNodesStored = v !== undefined && format === undefined;
    if (format === LEAVES_IN_LEVELDB) await this.moveLeavesToRuns();
    else if (format === LEAVES_IN_RUNS && this.trie !== this.main) await this.dropLevelLeaves();
    if (this.stateStart !== undefined && this.stateStart > 0n) this.layers.startAt(this.stateStart - 1n);
  }

  /**
   * The first block whose trie nodes the disk layer does not hold: from it to the head, the
   * layers are rebuilt from the blocks' forward diffs at start. Undefined: no block written yet
   * (or a data directory of the old, hash-keyed format).
   */
  get stateLayerStart(): bigint | undefined {
    return this.stateStart;
  }

  /** The folder of the body files, where the flashblock journal's segments go; none in memory. */
  get bodiesDir(): string | undefined {
    return this.bodies?.folder;
  }

  /** Where the newest block's flashblock records start (keys.journalStart): recovery reads from there. */
  async journalStart(): Promise<JournalPosition | undefined> {
    const v = await this.get(keys.journalStart);
    if (v?.length !== 12) return undefined;
    const b = Buffer.from(v.buffer, v.byteOffset, v.length);
    return { segment: b.readUInt32BE(0), offset: Number(b.readBigUInt64BE(4)) };
  }

  /**
   * The shell (journalBody.ts) of `w`'s block if its journal records hold exactly its
   * transactions, read back from the disk as a reader will read them; else undefined.
   */
  private async shellFromJournal(w: BlockWrite): Promise<Bytes | undefined> {
    const range = w.journal;
    if (!this.bodies || !range?.complete) return undefined;
    try {
      const txs = blockTxsOf(await this.bodies.readJournal(range));
      return txs && shellOf(w.rlp, txs, range);
    } catch {
      // The segment unreadable: the body is written whole, as before.
      return undefined;
    }
  }

  /** Whether the trie's database stores every node (before decision 0650): convertTrieFormat. */
  get needsTrieConversion(): boolean {
    return this.deepNodesStored;
  }

  /**
   * Converts a disk layer that stores every node (before decision 0650): its leaves, read from
   * its trie at `root` (the state root at block keys.stateLayer - 1; the empty root: none), are
   * written as leaf runs (the slots' and the accounts', each in key order as the walk yields
   * them), named in keys.leafRuns with keys.trieFormat, synced; then the nodes below the written
   * depth are deleted. A crash before the format key lands leaves the old format whole (converted
   * again at the next open, the runs' files deleted); after it, at worst nodes no read asks for.
   * Returns the leaves written.
   */
  async convertTrieFormat(root: Bytes): Promise<number> {
    const db = this.trie.db;
    const view = this.trie.view;
    const reader = (owner?: Bytes) => async (hash: Bytes, path: Bytes) =>
      checked(hash, await db.get(trieNodeKey(owner, path), { snapshot: view }));
    const slots = await this.leafRuns.create();
    const accounts = await this.leafRuns.create();
    try {
      if (!sameHash(root, EMPTY_TRIE_ROOT))
        for await (const [nibbles, leaf] of trieLeaves(root, reader())) {
          const owner = nibblesToBytes(nibbles);
          // A fork's deleted account is its DELETED_ACCOUNT leaf, not an account's list.
          const isAccount = leaf[0] >= 0xc0;
          await accounts.writer.add(keys.hashedAccount(owner), isAccount ? slimAccount(leaf) : leaf);
          const storageRoot = isAccount ? createAccountFromRLP(leaf).storageRoot : EMPTY_TRIE_ROOT;
          if (sameHash(storageRoot, EMPTY_TRIE_ROOT)) continue;
          for await (const [slot, value] of trieLeaves(storageRoot, reader(owner)))
            await slots.writer.add(
              keys.hashedStorage(owner, nibblesToBytes(slot)),
              RLP.decode(value) as Bytes,
            );
        }
    } catch (e) {
      await slots.writer.abandon();
      await accounts.writer.abandon();
      throw e;
    }
    const leaves = slots.writer.count + accounts.writer.count;
    await this.landRuns([await this.leafRuns.finish(slots), await this.leafRuns.finish(accounts)]);
    this.deepNodesStored = false;
    let batch = db.batch();
    let n = 0;
    for (const prefix of [
      keys.accountNode(new Uint8Array(0)),
      keys.storageNode(new Uint8Array(0), new Uint8Array(0)),
    ])
      for await (const k of db.keys({ gte: prefix, lt: Uint8Array.of(prefix[0] + 1) }))
        if (!isStoredDepth(pathLengthOfName(latin1(k)))) {
          batch.del(k);
          if (++n % CONVERT_BATCH === 0) {
            await batch.write();
            batch = db.batch();
          }
        }
    await batch.write();
    this.renewView(this.trie);
    return leaves;
  }

  /**
   * Runs a conversion wrote, live: named in keys.leafRuns with keys.trieFormat (LEAVES_IN_RUNS)
   * in one synced batch, then adopted.
   */
  private async landRuns(runs: NewRun[]): Promise<void> {
    await this.trie.db.batch(
      [
        { type: 'put', key: keys.leafRuns, value: this.leafRuns.manifestWith(runs) },
        { type: 'put', key: keys.trieFormat, value: TRIE_FORMAT },
      ],
      { sync: true } as never,
    );
    for (const r of runs) this.leafRuns.adopt(r);
  }

  /**
   * A disk layer of decision 0650's format (its leaves LevelDB keys `h` and `g`), converted at
   * open: the keys, in order, into one leaf run, named in keys.leafRuns with the new format,
   * synced; then the keys deleted (dropLevelLeaves). A crash before the batch lands leaves the
   * old format whole and an unnamed file, deleted at the next open.
   */
  private async moveLeavesToRuns(): Promise<void> {
    const out = await this.leafRuns.create();
    try {
      for (const prefix of [
        keys.hashedStoragePrefix(new Uint8Array(0)),
        keys.hashedAccount(new Uint8Array(0)),
      ])
        for await (const [k, v] of this.trie.db.iterator({ gte: prefix, lt: Uint8Array.of(prefix[0] + 1) }))
          await out.writer.add(k, v);
    } catch (e) {
      await out.writer.abandon();
      throw e;
    }
    await this.landRuns([await this.leafRuns.finish(out)]);
    await this.dropLevelLeaves();
  }

  /** Deletes leaves a crash left in LevelDB after they went to runs (moveLeavesToRuns). */
  private async dropLevelLeaves(): Promise<void> {
    for (const prefix of [keys.hashedStoragePrefix(new Uint8Array(0)), keys.hashedAccount(new Uint8Array(0))])
      await this.trie.db.clear({ gte: prefix, lt: Uint8Array.of(prefix[0] + 1) });
  }

  /** Whether the database holds trie nodes of the old format (keyed by hash, before 0211). */
  hasOldTrieNodes(): Promise<boolean> {
    return this.hasPrefix(keys.oldTrieNode);
  }

  /** Whether any key of the chain's database starts with the one-byte `prefix`. */
  private async hasPrefix(prefix: Bytes): Promise<boolean> {
    for await (const _ of this.main.db.keys({ gte: prefix, lt: Uint8Array.of(prefix[0] + 1), limit: 1 }))
      return true;
    return false;
  }

  /** Block `n`'s forward state diff (keys.stateDiff), for rebuilding its diff layer. */
  async stateDiffOf(n: bigint): Promise<StateDiffRecord | undefined> {
    const raw = await this.main.db.get(keys.stateDiff(n), { snapshot: this.main.view });
    if (!raw) return undefined;
    return decodeStateDiff(this.bodies && isBodyRef(raw) ? await this.bodies.read(raw) : raw);
  }

  /**
   * Refuses state older than the window: the error names the block, the window and its flag.
   * `head`: the chain's head number.
   */
  requireState(block: bigint, head: bigint): void {
    const oldest = this.layers.oldest;
    if (oldest === undefined || block >= oldest) return;
    // The blocks kept: --state-window, or fewer when their trie nodes passed --state-window-memory.
    const kept = head - oldest;
    const flag = kept < BigInt(this.layers.limits.window) ? '--state-window-memory' : '--state-window';
    throw new StateUnavailableError(
      `historical state not available: block ${block} is older than the ${kept} blocks this node keeps state for (head ${head}, oldest ${oldest}; ${flag})`,
    );
  }

  /** A rebuilt diff layer (start-up): as writeBlock adds one, without writing the block. */
  restoreLayer(number: bigint, nodes: PathNode[]): void {
    this.layers.add(number, nodes);
    this.maybeFlush();
  }

  /**
   * evm_revert: the diff layers above `block` go, with the forward diffs of those blocks (ops
   * for the revert's batch). Throws StateUnavailableError when the disk layer is past `block`.
   */
  revertStateTo(block: bigint, head: bigint): { key: Bytes }[] {
    this.requireState(block, head);
    if (!this.layers.dropAbove(block)) this.requireState(block, head);
    const ops: { key: Bytes }[] = [];
    for (let n = block + 1n; n <= head; n++) ops.push({ key: keys.stateDiff(n) });
    return ops;
  }

  /**
   * anvil_reset: the operations that delete the forward diffs and mark the state trie for
   * deletion, for the reset's batch (`rewrite` empties the trie's database once it lands:
   * trieDatabase.ts). `next`: the first block on top of an empty trie afterwards (a fork's first
   * block after its fork point), stored as keys.stateLayer; none: the next block written starts
   * the database's state (genesis). Call stateReset(next) once the batch has landed.
   */
  async stateResetOps(next?: bigint): Promise<{ key: Bytes; value?: Bytes }[]> {
    await this.flushed();
    const ops: { key: Bytes; value?: Bytes }[] = [];
    for (const key of await this.keysWithPrefix(keys.stateDiff(0n).subarray(0, 1))) ops.push({ key });
    ops.push({ key: keys.trieReset, value: trieResetValue(next) });
    return ops;
  }

  /** The layers after a reset's batch (stateResetOps): none, over an empty trie. */
  stateReset(next?: bigint): void {
    this.deepNodesStored = false;
    this.layers.reset();
    this.cleanNodes.clear();
    this.stateStart = next;
    if (next !== undefined && next > 0n) this.layers.startAt(next - 1n);
  }

  /** Waits for the queued batches, then closes the database. */
  async close(): Promise<void> {
    this.leafRuns.stop();
    await this.subtrees.stop();
    await this.writing;
    await this.merging;
    await this.writing;
    await this.leafRuns.close();
    for (const part of this.trie === this.main ? [this.main] : [this.main, this.trie]) {
      await part.view.close();
      await part.db.close();
    }
    await this.bodies?.close();
  }

  /** Resolves when every block handed to writeBlock so far is on disk (rejects if one failed). */
  flushed(): Promise<void> {
    return this.writing.then(async () => {
      await this.keeping;
      if (this.failure) throw this.failure;
    });
  }

  async get(key: Bytes): Promise<Bytes | undefined> {
    const o = this.fromOverlay(key);
    if (o !== MISS) return o;
    const part = this.partOf(key);
    const v = await part.db.get(key, { snapshot: part.view });
    return v && this.bodies && isBodyRef(v) && BODY_PREFIXES.has(key[0]) ? this.bodies.read(v) : v;
  }

  /** `values` of `ks` as stored, with the body files' references (bodyFiles.ts) read. */
  private async withBodies(ks: Bytes[], values: (Bytes | undefined)[]): Promise<(Bytes | undefined)[]> {
    const bodies = this.bodies;
    if (!bodies) return values;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v && isBodyRef(v) && BODY_PREFIXES.has(ks[i][0])) values[i] = await bodies.read(v);
    }
    return values;
  }

  /** The database that keeps `key` (trieDatabase.ts). */
  private partOf(key: Bytes): Part {
    return isTrieKey(key) ? this.trie : this.main;
  }

  /**
   * Reads of `part` (both: none given) see what has just landed: a new snapshot, the previous
   * one closed once its reads are done.
   */
  private renewView(part?: Part): void {
    for (const p of part ? [part] : this.trie === this.main ? [this.main] : [this.main, this.trie]) {
      const old = p.view;
      p.view = p.db.snapshot();
      old.close().catch(() => {});
    }
  }

  /**
   * `ops` in one batch per database, each atomic, both synced when `sync`: the chain's first.
   * Only anvil_reset gives trie keys here (all of them, deleted, with the head's): a crash between
   * the two leaves a trie without a chain head, which the next open clears (trieDatabase.ts).
   */
  private async writeSplit(ops: { key: Bytes; value?: Bytes }[], sync: boolean): Promise<void> {
    const parts = this.trie === this.main ? [this.main] : [this.main, this.trie];
    for (const part of parts) {
      const batch = part.db.batch();
      let n = 0;
      for (const { key, value } of ops) {
        if (parts.length > 1 && (part === this.trie) !== isTrieKey(key)) continue;
        if (n++ % BATCH_SLICE === 0) await nextTurn();
        if (value) batch.put(key, value);
        else batch.del(key);
      }
      if (n) await batch.write({ sync } as never);
      else await batch.close();
      this.renewView(part);
    }
  }

  /**
   * What the unwritten blocks say of `key`: its value, undefined (deleted, or a slot of an
   * account they cleared), or MISS (ask LevelDB).
   */
  private fromOverlay(key: Bytes): Bytes | undefined | typeof MISS {
    if (!this.unwritten.size) return MISS;
    const v = this.unwritten.get(overlayKey(key));
    if (v !== undefined) return v ?? undefined;
    if (this.cleared.size && key[0] === STORAGE && this.cleared.has(overlayKey(key.subarray(1, 21))))
      return undefined;
    return MISS;
  }

  async put(key: Bytes, value: Bytes): Promise<void> {
    const part = this.partOf(key);
    await part.db.put(key, value);
    this.renewView(part);
  }

  /** Puts in one batch (what a fork fetched: keys no block writes, so no overlay is involved). */
  async putMany(entries: [Bytes, Bytes][]): Promise<void> {
    await this.writeSplit(
      entries.map(([key, value]) => ({ key, value })),
      false,
    );
  }

  /** This store as the trie reads it (trie/types.ts): its trie nodes by path. */
  readonly trieNodes: TrieNodeStore = {
    get: (hash, path, owner, toward) => this.getTrieNode(hash, path, owner, toward),
    getMany: (hashes, paths, owner, toward) => this.getTrieNodes(hashes, paths, owner, toward),
  };

  /**
   * The trie node `hash` at `path` of the trie `owner` (types.ts TrieNodeStore): from the diff
   * layers, else the disk layer, whose node there must be that one (checked by its keccak).
   * `toward`: the keys (nibbles) whose reads wait on it, when known (makeNode).
   */
  async getTrieNode(
    hash: Bytes,
    path?: Bytes,
    owner?: Bytes,
    toward?: readonly Bytes[],
  ): Promise<Bytes | undefined> {
    if (!path) return undefined;
    const key = trieNodeKey(owner, path);
    const name = latin1(key);
    const mem = this.layers.find(name, hash) ?? this.cleanNodes.find(name, hash);
    if (mem) return mem;
    if (!this.storesNodeAt(path)) return this.makeNode(hash, path, owner, toward);
    const enc = checked(hash, await this.trie.db.get(key, { snapshot: this.trie.view }));
    if (enc) this.cleanNodes.put(name, hash, enc);
    else if (this.madeWhenStale(path)) return this.makeNode(hash, path, owner, toward);
    return enc;
  }

  /** Many trie nodes, those not in memory in one LevelDB call, in the order asked. */
  async getTrieNodes(
    hashes: Bytes[],
    paths?: Bytes[],
    owner?: Bytes,
    toward?: (readonly Bytes[] | undefined)[],
  ): Promise<(Bytes | undefined)[]> {
    if (!paths) return hashes.map(() => undefined);
    const out: (Bytes | undefined)[] = new Array(hashes.length);
    const at: number[] = [];
    const ks: Bytes[] = [];
    const names: string[] = [];
    const made: Promise<void>[] = [];
    for (let i = 0; i < hashes.length; i++) {
      const key = trieNodeKey(owner, paths[i]);
      const name = latin1(key);
      out[i] = this.layers.find(name, hashes[i]) ?? this.cleanNodes.find(name, hashes[i]);
      if (out[i] !== undefined) continue;
      if (!this.storesNodeAt(paths[i])) {
        made.push(
          this.makeNode(hashes[i], paths[i], owner, toward?.[i]).then((enc) => {
            out[i] = enc;
          }),
        );
        continue;
      }
      at.push(i);
      ks.push(key);
      names.push(name);
    }
    if (ks.length) {
      const got = await this.fromDb(ks, this.trie);
      for (let j = 0; j < at.length; j++) {
        const hash = hashes[at[j]];
        const enc = checked(hash, got[j]);
        out[at[j]] = enc;
        if (enc) this.cleanNodes.put(names[j], hash, enc);
        else if (this.madeWhenStale(paths[at[j]])) {
          const i = at[j];
          made.push(
            this.makeNode(hash, paths[i], owner, toward?.[i]).then((e) => {
              out[i] = e;
            }),
          );
        }
      }
    }
    if (made.length) await Promise.all(made);
    return out;
  }

  /** Whether the disk layer stores its node at `path` (else: made from its leaves). */
  private storesNodeAt(path: Bytes): boolean {
    return this.deepNodesStored || isStoredDepth(path.length);
  }

  /** Whether the node stored at `path` may be older than the disk layer (then made). */
  private madeWhenStale(path: Bytes): boolean {
    return !this.deepNodesStored && mayBeStale(path.length);
  }

  /**
   * The disk layer's node at `path` of the trie `owner`, made from the leaves under the path
   * (hashedState.ts), if its keccak is `hash` (else another version: undefined, as a stored node
   * of another version). Nodes of the subtree go to the clean cache, for the reads that follow
   * down from it: with `toward`, only those along the keys read. The whole subtree (~70 nodes at a
   * million accounts) would turn the 32 MB cache over every few seconds at 1,000 transfers/s, its
   * copying was ~4.5% of the main thread by minute 14, and a read uses ~2 of those nodes.
   */
  private async makeNode(
    hash: Bytes,
    path: Bytes,
    owner: Bytes | undefined,
    toward: readonly Bytes[] | undefined,
  ): Promise<Bytes | undefined> {
    // Without keys, a stale depth-3 node's subtree is ~1/4,096 of the trie: only its top three
    // levels are kept, not a flood through the cache after a restart; the reads below make theirs.
    const keep = toward ?? (isStoredDepth(path.length) ? path.length + 3 : Number.POSITIVE_INFINITY);
    const { leaves, nodes } = await this.subtrees.make(owner, path, hash, keep);
    this.readKeys.nodesMade++;
    this.readKeys.leavesRead += leaves;
    if (!nodes) return undefined;
    for (const [h, enc, p] of nodes) this.cleanNodes.put(latin1(trieNodeKey(owner, p)), h, enc);
    // A copy: the encoding is a view into a buffer other nodes share.
    return nodes[nodes.length - 1][1].slice();
  }

  /** Many keys in one LevelDB call (one trip to its thread pool), in the order asked. */
  async getMany(ks: Bytes[]): Promise<(Bytes | undefined)[]> {
    if (!this.unwritten.size) return this.withBodies(ks, await this.fromDb(ks));
    const out = ks.map((k) => this.fromOverlay(k));
    const at: number[] = [];
    for (const [i, o] of out.entries()) if (o === MISS) at.push(i);
    if (at.length) {
      const asked = at.map((i) => ks[i]);
      const got = await this.withBodies(asked, await this.fromDb(asked));
      for (const [j, i] of at.entries()) out[i] = got[j];
    }
    return out as (Bytes | undefined)[];
  }

  /**
   * Reads from LevelDB. The reads asked for while the current callbacks and their promise
   * continuations run are gathered into one `getMany`, issued once they have settled
   * (`process.nextTick`): a staging pass's accounts and trie paths, and every walker a result
   * resumes, go in one trip to LevelDB's threads instead of one each (decision 0431).
   */
  private fromDb(ks: Bytes[], part = this.main): Promise<(Bytes | undefined)[]> {
    let g = part.gathered;
    if (!g) {
      g = part.gathered = { keys: [], waiting: [] };
      process.nextTick(() => this.readGathered(part));
    }
    const from = g.keys.length;
    for (const k of ks) g.keys.push(k);
    const waiting = g.waiting;
    return new Promise((resolve, reject) => waiting.push({ from, to: g.keys.length, resolve, reject }));
  }

  private readGathered(part: Part): void {
    const g = part.gathered;
    part.gathered = undefined;
    if (!g) return;
    this.reads++;
    const counts = this.readKeys;
    for (const k of g.keys) {
      const kind = k[0];
      if (kind === ACCOUNT) counts.account++;
      else if (kind === STORAGE) counts.storage++;
      else if (kind === ACCOUNT_NODE || kind === STORAGE_NODE) counts.trieNode++;
      else counts.other++;
    }
    part.db.getMany(g.keys, { snapshot: part.view }).then(
      (values) => {
        for (const w of g.waiting) w.resolve(values.slice(w.from, w.to));
      },
      (e) => {
        for (const w of g.waiting) w.reject(e);
      },
    );
  }

  async hashByNumber(n: bigint): Promise<Bytes | undefined> {
    return this.get(keys.canonical(n));
  }

  /**
   * Where the transaction `txHash` is: the block's hash and its position. The block is the
   * canonical one at the number stored (txIndex.ts): a reader checks the transaction there.
   */
  async txLocation(txHash: Bytes): Promise<{ blockHash: Bytes; index: number } | undefined> {
    const v =
      (await this.get(keys.txIndex(txHash))) ??
      (this.oldTxIndex ? await this.get(keys.oldTxIndex(txHash)) : undefined);
    if (!v) return undefined;
    const at = decodeTxPosition(v);
    if ('blockHash' in at) return at;
    const blockHash = await this.hashByNumber(at.number);
    return blockHash && { blockHash, index: at.index };
  }

  /** The index keys a block taken off the chain deletes for its transaction `txHash`. */
  txIndexKeys(txHash: Bytes): Bytes[] {
    return this.oldTxIndex ? [keys.txIndex(txHash), keys.oldTxIndex(txHash)] : [keys.txIndex(txHash)];
  }

  /** Up to `limit` entries whose key starts with `prefix` (start-up preloading). */
  async scan(prefix: Bytes, limit: number): Promise<[Bytes, Bytes][]> {
    const end = concat(prefix, new Uint8Array(64).fill(0xff));
    const out: [Bytes, Bytes][] = [];
    for await (const [k, v] of this.partOf(prefix).db.iterator({ gte: prefix, lt: end, limit }))
      out.push([k, v]);
    return out;
  }

  /** Storage keys of `address` in the flat state (for a whole-account storage clear). */
  async storageKeys(address: Bytes): Promise<Bytes[]> {
    const prefix = keys.storagePrefix(address);
    const end = concat(prefix, new Uint8Array(33).fill(0xff));
    const out: Bytes[] = [];
    for await (const k of this.main.db.keys({ gte: prefix, lt: end })) out.push(k);
    return out;
  }

  /**
   * One atomic, synced batch of arbitrary operations (per database: writeSplit), after every
   * queued block is on disk: the dev methods that rewrite history (evm_revert drops blocks and
   * restores the flat state). A trie reset among them (stateResetOps) is carried out after.
   */
  async rewrite(ops: { key: Bytes; value?: Bytes }[]): Promise<void> {
    await this.flushed();
    await this.writeSplit(ops, true);
    if (ops.some((op) => op.key.length === 1 && op.key[0] === keys.trieReset[0])) {
      await finishTrieReset(this.main.db, this.trie.db);
      this.leafRuns.clear();
      this.renewView();
    }
  }

  /** Every key starting with `prefix` (one byte: a kind of entry, see keys.ts). */
  async keysWithPrefix(prefix: Bytes): Promise<Bytes[]> {
    const end = concat(prefix, new Uint8Array(80).fill(0xff));
    const out: Bytes[] = [];
    for await (const k of this.partOf(prefix).db.keys({ gte: prefix, lt: end })) out.push(k);
    return out;
  }

  /** Counts an operation of a block's batch as written (`written`). */
  private count(key: Bytes, value: Bytes | undefined): void {
    const n = key.length + (value?.length ?? 0);
    this.written.batchBytes += n;
    if (BLOCK_PREFIXES.has(key[0])) this.written.blockBytes += n;
  }

  /**
   * Queues a sealed block and its state diff for one atomic batch, moving the head to it; what it
   * writes is readable through this store at once. Resolves when the batch is on disk.
   * `fillAfter`: the batch is filled (~10,000 puts on this thread, in slices) only once it
   * settles, so that the filling can be kept out of a busy moment (the builder: the next block's
   * first flashblock).
   */
  writeBlock(w: BlockWrite, fillAfter?: Promise<unknown>): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const ops = blockOps(w, this.tombstones);
    // The first block of a new database: the disk layer starts empty, replay starts here.
    const firstLayer = this.stateStart === undefined;
    if (firstLayer) {
      this.stateStart = w.number;
      if (w.number > 0n) this.layers.startAt(w.number - 1n);
      // With the block in one database; before it, synced, in the trie's own (a block on disk
      // without `L` would read as the old format).
      if (this.trie === this.main) {
        ops.push({ type: 'put', key: keys.stateLayer, value: u64(w.number) });
        ops.push({ type: 'put', key: keys.trieFormat, value: TRIE_FORMAT });
      }
    }
    this.written.blocks++;
    this.written.stateDiffBytes += stateDiffBytes(w);
    this.layers.add(w.number, w.nodes);
    const overlay: [string, Bytes | null][] = ops.map((op) => [
      overlayKey(op.key),
      op.type === 'put' ? op.value : null,
    ]);
    const cleared = w.clearedStorage.map(overlayKey);
    // An earlier unwritten block's slots of a cleared account are gone with it.
    for (const a of cleared)
      for (const k of this.unwritten.keys())
        if (k.charCodeAt(0) === STORAGE && k.startsWith(a, 1)) this.unwritten.delete(k);
    for (const [k, v] of overlay) this.unwritten.set(k, v);
    for (const a of cleared) this.cleared.set(a, (this.cleared.get(a) ?? 0) + 1);
    const run = this.writing.then(async () => {
      if (fillAfter) await fillAfter.catch(() => {});
      if (this.failure) throw this.failure;
      try {
        // Storage keys on disk now: every earlier block's batch has landed (the queue is serial).
        // A chained batch filled a slice at a time: a block's ~10,000 operations in one call
        // would hold the event loop (and the next flashblock) for ~100 ms.
        // The forward diff: what rebuilds this block's diff layer after a crash (encoded here,
        // off the seal's path).
        const diff = encodeStateDiff(w);
        // The body and the forward diff first, synced, in the body files; LevelDB gets
        // references to them (decision 0491). A small body stays in LevelDB: its double write
        // costs little, and a second sync would hold a block sealed on its own (--block-time 0,
        // no journal) longer before it is on disk.
        // A block built in flashblocks: its transactions are in the journal already, the body
        // files get its shell (decision 0521).
        let refs: Bytes[] | undefined;
        if (this.bodies && w.rlp.length + w.receipts.length + w.senders.length >= BODY_FILE_MIN_BYTES) {
          const before = this.bodies.bytesWritten;
          const shell = await this.shellFromJournal(w);
          refs = await this.bodies.append([shell ?? w.rlp, compactReceiptList(w.receipts), w.senders, diff]);
          if (shell) {
            refs[0] = shellRef(refs[0]);
            this.written.bodiesInJournal++;
          }
          this.written.bodyFileBytes += this.bodies.bytesWritten - before;
        }
        if (firstLayer && this.trie !== this.main)
          await this.trie.db.batch(
            [
              { type: 'put', key: keys.trieFormat, value: TRIE_FORMAT },
              { type: 'put', key: keys.stateLayer, value: u64(w.number) },
            ],
            { sync: true } as never,
          );
        const batch = this.main.db.batch();
        if (w.journal) {
          const start = Buffer.allocUnsafe(12);
          start.writeUInt32BE(w.journal.segment, 0);
          start.writeBigUInt64BE(BigInt(w.journal.from), 4);
          batch.put(keys.journalStart, start);
        }
        for (const addr of w.clearedStorage) for (const k of await this.storageKeys(addr)) batch.del(k);
        const diffValue = refs ? refs[3] : diff;
        batch.put(keys.stateDiff(w.number), diffValue);
        this.written.diffRecordBytes += diffValue.length + 9;
        this.written.batchBytes += diffValue.length + 9;
        for (let i = 0; i < ops.length; i++) {
          if (i % BATCH_SLICE === 0) await nextTurn();
          const op = ops[i];
          if (op.type === 'del') {
            batch.del(op.key);
            this.count(op.key, undefined);
            continue;
          }
          // The overlay holds the values as the seal made them (readers take both forms); the
          // batch the compact ones, made here, off the seal's path (decisions 0421, 0422), or
          // the references to the body files.
          const body = refs && BODY_INDEX[op.key[0]];
          const value = refs && body !== undefined ? refs[body] : stored(op.key, op.value);
          batch.put(op.key, value);
          this.count(op.key, value);
        }
        await batch.write({ sync: true } as never);
      } catch (e) {
        this.failure = new Error(`writing block ${w.number} failed: ${(e as Error).message}`, { cause: e });
        throw this.failure;
      }
      // Before the overlay lets go of these keys, reads must find them in LevelDB.
      this.renewView(this.main);
      // On disk: the overlay may forget what a later block has not overwritten since.
      for (const [k, v] of overlay) if (this.unwritten.get(k) === v) this.unwritten.delete(k);
      for (const a of cleared) {
        const n = (this.cleared.get(a) ?? 1) - 1;
        if (n) this.cleared.set(a, n);
        else this.cleared.delete(a);
      }
    });
    this.writing = run.catch(() => {});
    this.maybeFlush();
    return run;
  }

  /**
   * The leaves of blocks [from, next), from their forward diffs (on disk until this flush lands),
   * folded in order: what the flush writes to the leaves (hashedState.ts).
   */
  private async leafChangesOf(from: bigint, next: bigint): Promise<LeafChanges> {
    const changes = new LeafChanges();
    for (let n = from; n < next; n++) {
      const rec = await this.stateDiffOf(n);
      if (!rec) throw new Error(`block ${n}'s state diff is missing`);
      changes.add(rec, this.tombstones);
      await nextTurn();
    }
    return changes;
  }

  /**
   * A flush has landed: its nodes (the newest version of each path) go to the clean cache, in
   * slices (a flush is up to 32 MiB of nodes), and only then leave the layers: a read finds them
   * in one or the other all along.
   */
  private async keepFlushed(f: Flush): Promise<void> {
    let i = 0;
    for (const [name, enc, hash] of f.entries()) {
      if (i++ % BATCH_SLICE === 0) await nextTurn();
      this.cleanNodes.put(name, hash, enc);
    }
    this.layers.flushed();
  }

  /**
   * Writes the disk layer's buffer when it is due: one batch of nodes and the new
   * keys.stateLayer in the trie's database, then the deletion of the forward diffs it makes
   * unneeded in the chain's, queued behind the blocks (a crash before the first lands replays
   * those blocks from their diffs; after it, from the next; diffs left below `L` are deleted at
   * the next open). The trie's batch is synced: the next block's synced batch syncs the chain's
   * log only, and the diffs must not go before the nodes are durable. In one database (memory)
   * it is one unsynced batch, as before.
   */
  private maybeFlush(force = false): void {
    const f = this.layers.takeFlush(force);
    if (!f) return;
    const landed = this.writing.then(async () => {
      if (this.failure) throw this.failure;
      let run: NewRun | undefined;
      let live: NewRun | undefined;
      try {
        const split = this.trie !== this.main;
        const allNodes = this.deepNodesStored;
        // The first flush after an open and one in FULL_FLUSH_EVERY after it write depth 3.
        const full = this.written.flushes % FULL_FLUSH_EVERY === 0;
        // Read before the batch is filled: LevelDB's chained batch is not to be held open across
        // reads of the same database (and the leaves' deletions need the disk's keys).
        const leaves = allNodes ? undefined : await this.leafChangesOf(f.from, f.next);
        // The leaves first, in a run of their own, synced: the batch below makes it live.
        run = leaves && (await this.leafRuns.write(leaves));
        const batch = this.trie.db.batch();
        let i = 0;
        for (const [name, enc] of f.entries()) {
          if (i++ % BATCH_SLICE === 0) await nextTurn();
          // Below the depth written the nodes are made from the leaves (hashedState.ts).
          if (!allNodes && !isWrittenDepth(pathLengthOfName(name), full)) continue;
          batch.put(fromLatin1(name), enc);
          this.written.trieFlushBytes += name.length + enc.length;
        }
        if (run) {
          batch.put(keys.leafRuns, this.leafRuns.manifestWith([run]));
          this.written.leafFlushBytes += run.run.size;
        }
        batch.put(keys.stateLayer, u64(f.next));
        const diffs = split ? this.main.db.batch() : batch;
        for (let n = f.from; n < f.next; n++) diffs.del(keys.stateDiff(n));
        await batch.write({ sync: split } as never);
        // Named in the manifest now: never discarded, live with the view below.
        live = run;
        run = undefined;
        if (split) await diffs.write();
        this.written.flushes++;
      } catch (e) {
        if (run) await this.leafRuns.discard(run);
        this.failure = new Error(
          `writing the state trie up to block ${f.next - 1n} failed: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
        throw this.failure;
      }
      if (live) this.leafRuns.adopt(live);
      this.renewView();
      this.stateStart = f.next;
      // Off the write queue: the next block's batch does not wait for the clean cache.
      this.keeping = this.keepFlushed(f);
      this.maybeMerge();
    });
    this.writing = landed.catch(() => {});
  }

  /**
   * Merges leaf runs while they are due (leafRuns.ts), one merge at a time, off the write queue:
   * only the manifest's swap is queued behind the blocks. A merge that fails leaves the runs as
   * they were (its file deleted); the next flush tries again.
   */
  private maybeMerge(): void {
    if (this.merging || this.failure) return;
    this.merging = (async () => {
      for (;;) {
        const r = await this.leafRuns.merge();
        if (!r) return;
        let live = false;
        const swapped = this.writing.then(async () => {
          if (this.failure || !this.leafRuns.isCurrent(r)) return;
          await this.trie.db.put(keys.leafRuns, this.leafRuns.manifestWith([r]), { sync: true } as never);
          this.leafRuns.adopt(r);
          this.written.leafMergeBytes += r.run.size;
          live = true;
        });
        this.writing = swapped.catch(() => {});
        await swapped.finally(async () => {
          if (!live) await this.leafRuns.discard(r);
        });
      }
    })()
      .catch(() => {})
      .finally(() => {
        this.merging = undefined;
      });
  }
}

/**
 * keys.trieFormat's value for a new database: the disk layer's deep nodes are made from its
 * leaves (decision 0650), which are runs of their own (0670).
 */
const TRIE_FORMAT = Uint8Array.of(LEAVES_IN_RUNS);
/** Puts per batch while converting a trie's database to that format. */
const CONVERT_BATCH = 20_000;

/** Nibbles (an even number) as the bytes they spell. */
function nibblesToBytes(nibbles: Bytes): Bytes {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return out;
}

/** `enc` when its keccak is `hash` (the node a path holds may be another version), else undefined. */
function checked(hash: Bytes, enc: Bytes | undefined): Bytes | undefined {
  return enc && sameHash(keccak256(enc), hash) ? enc : undefined;
}

/** A block's forward state diff as stored (keys.stateDiff): final values, null = deleted. */
export interface StateDiffRecord {
  accounts: { address: Bytes; rlp: Bytes | null }[];
  clearedStorage: Bytes[];
  storage: { address: Bytes; slot: Bytes; value: Bytes }[];
}

/** RLP [[address, slim account (flatAccount.ts) or empty]..., [address...], [address, slot, value]...]. */
function encodeStateDiff(w: BlockWrite): Bytes {
  const EMPTY = new Uint8Array(0);
  return RLP.encode([
    [...w.accounts.values()].map((a) => [a.address, a.rlp ? slimAccount(a.rlp) : EMPTY]),
    w.clearedStorage,
    w.storage.map((s) => [s.address, s.slot, s.value]),
  ]);
}

function decodeStateDiff(raw: Bytes): StateDiffRecord {
  const [accounts, cleared, storage] = RLP.decode(raw) as unknown as [Bytes[][], Bytes[], Bytes[][]];
  return {
    accounts: accounts.map(([address, rlp]) => ({ address, rlp: rlp.length ? fullAccount(rlp) : null })),
    clearedStorage: cleared,
    storage: storage.map(([address, slot, value]) => ({ address, slot, value })),
  };
}

/**
 * The bytes of a block's state diff: the changed accounts as the trie encodes them (not slimmed:
 * the measure stays what it was before decision 0422), slots and code.
 */
function stateDiffBytes(w: BlockWrite): number {
  let n = 0;
  for (const a of w.accounts.values()) n += 1 + a.address.length + (a.rlp?.length ?? 0);
  for (const s of w.storage) n += 1 + s.address.length + s.slot.length + s.value.length;
  for (const c of w.code) n += 1 + c.hash.length + c.code.length;
  return n;
}

const ACCOUNT = 'a'.charCodeAt(0);
const RECEIPTS = 'r'.charCodeAt(0);

/**
 * A value of a block's batch as the database keeps it: an account slim (flatAccount.ts), a
 * block's receipts without their blooms (receiptCodec.ts); anything else as it is.
 */
function stored(key: Bytes, value: Bytes): Bytes {
  if (key[0] === ACCOUNT && value.length) return slimAccount(value);
  if (key[0] === RECEIPTS) return compactReceiptList(value);
  return value;
}

/** A block's batch, except the deletions of cleared storage (read from disk when it is written). */
function blockOps(w: BlockWrite, tombstones: boolean): Op[] {
  const gone = (key: Bytes): Op =>
    tombstones ? { type: 'put', key, value: new Uint8Array(0) } : { type: 'del', key };
  const ops: Op[] = [];
  for (const c of w.code) ops.push({ type: 'put', key: keys.code(c.hash), value: c.code });
  for (const s of w.storage) {
    const key = keys.storage(s.address, s.slot);
    ops.push(s.value.length ? { type: 'put', key, value: s.value } : gone(key));
  }
  for (const a of w.accounts.values()) {
    const key = keys.account(a.address);
    ops.push(a.rlp ? { type: 'put', key, value: a.rlp } : gone(key));
  }
  ops.push({ type: 'put', key: keys.block(w.hash), value: w.rlp });
  ops.push({ type: 'put', key: keys.receipts(w.hash), value: w.receipts });
  ops.push({ type: 'put', key: keys.senders(w.hash), value: w.senders });
  w.txHashes.forEach((h, i) => {
    ops.push({ type: 'put', key: keys.txIndex(h), value: encodeTxPosition(w.number, i) });
  });
  ops.push({ type: 'put', key: keys.canonical(w.number), value: w.hash });
  ops.push({ type: 'put', key: keys.head, value: w.hash });
  return ops;
}
