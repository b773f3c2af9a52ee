/**
 * The block being built, one flashblock at a time. Each flashblock executes into a fresh
 * overlay (a JournaledState) stacked on the previous one; `publish()` freezes it and makes a new
 * snapshot — the partial block with cumulative gas, roots and bloom — that `pending` reads see.
 * Readers hold a snapshot, never a half-built flashblock. The seal turns exactly the published
 * transactions, in order, into a real block.
 *
 *   flat (latest sealed) <- layer 1 <- layer 2 <- ... <- working layer (unpublished)
 *                           └──────── published ─────┘
 *
 * One file (over 400 lines): the layers, the snapshots, the roots folded ahead and the seal share
 * one invariant (readers see only published layers; the seal takes exactly what was published).
 */
import { Block, type BlockHeader, createBlock, createBlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import { keccak256 } from '../crypto/keccak.js';
import { nextBaseFee } from '../execution/baseFee.js';
import { encodeBlock } from '../execution/blockEncoding.js';
import type { ChainContext } from '../execution/chainContext.js';
import { commitBlock } from '../execution/commitBlock.js';
import { PlainTransfers, type TransferFields, transferFields } from '../execution/plainTransfer.js';
import { createVm } from '../execution/vmFactory.js';
import { JournaledState, type StateDiff } from '../state/journaledState.js';
import { localRoot } from '../state/forkState.js';
import { ForkError } from '../storage/forkSource.js';
import { IncrementalStateRoot } from '../state/incrementalRoot.js';
import type { RootResult } from '../state/stateRoot.js';
import type { StateReader } from '../state/stateReader.js';
import type { StateTrie } from '../state/trieAdapter.js';
import { decodeReceipt, type StoredReceipt } from '../storage/receiptCodec.js';
import type { JournalRange } from '../storage/journalRecords.js';
import { AppendOnlyOrderedTrie } from '../trie/index.js';
import { TransactionFromBytes, transactionsOf } from './lazyTransactions.js';

export interface IncludedTx {
  /** A pool transaction's is built on first read (`PendingBlock.addPooled`). */
  readonly tx: TypedTransaction;
  /** The signed encoding, as submitted. */
  raw: Uint8Array;
  hash: Uint8Array;
  sender: Uint8Array;
  receipt: StoredReceipt;
  encodedReceipt: Uint8Array;
  gasUsed: bigint;
}

/** A transaction `addPooled` takes: the plain-transfer fields, and the object when execution needs it. */
export interface LazyTransaction extends TransferFields {
  readonly tx: TypedTransaction;
}

/** An executed transaction; `tx` read through from its source (built there on first read, if lazy). */
class Included implements IncludedTx {
  constructor(
    private readonly source: { readonly tx: TypedTransaction },
    readonly raw: Uint8Array,
    readonly hash: Uint8Array,
    readonly sender: Uint8Array,
    readonly receipt: StoredReceipt,
    readonly encodedReceipt: Uint8Array,
    readonly gasUsed: bigint,
  ) {}

  get tx(): TypedTransaction {
    return this.source.tx;
  }
}

/** A flashblock's state root, computed before it is published (see `PendingBlock.prepare`). */
export interface PreparedRoot {
  /** The working layer it was computed for, and how many transactions that layer held. */
  readonly layer: JournaledState;
  readonly txCount: number;
  readonly stateRoot: IncrementalStateRoot;
}

/** The keys a sealed block changed (for evm_revert, which restores them). */
export interface SealedChanges {
  accounts: string[];
  storage: Map<string, { cleared: boolean; slots: string[] }>;
}

/** Header fields the dev methods set for a block (evm_setBlockGasLimit, anvil_setCoinbase, ...). */
export interface HeaderOverrides {
  gasLimit?: bigint;
  baseFee?: bigint;
  coinbase?: Uint8Array;
  /** The header's prevRandao (mixHash); default keccak256(parent hash). A follower takes its sequencer's. */
  prevRandao?: Uint8Array;
}

export type AddOutcome = { ok: true; included: IncludedTx } | { ok: false; reason: string; retry: boolean };

/**
 * What `pending` reads see: the block as of its last published flashblock. Immutable.
 * Consumer: rpc (through state/resolve and rpc/chainReads), the flashblock streams.
 */
export interface PendingSnapshot {
  /** Index of the last published flashblock (0: the block was just opened). */
  index: number;
  number: bigint;
  parent: Block;
  /** The partial block's header: cumulative gasUsed, stateRoot, transactionsRoot, receiptsRoot, logsBloom. */
  header: BlockHeader;
  /** Header plus the pre-confirmed transactions. */
  block: Block;
  /** State after the last flashblock. */
  state: StateReader;
  /** Pre-confirmed transactions, in order. */
  txs: readonly IncludedTx[];
  /** Those this flashblock added (the tail of `txs`). */
  added: readonly IncludedTx[];
  gasUsed: bigint;
  baseFee: bigint;
  /** Accounts this flashblock changed, as they are now (undefined: deleted). */
  changedAccounts: Map<string, { balance: bigint } | undefined>;
}

export class PendingBlock {
  /** The header transactions execute against (roots are filled in per snapshot and at seal). */
  readonly header: BlockHeader;
  private readonly execBlock: Block;
  private top: StateReader;
  /** The flashblock being built; its VM is made for the first transaction that needs one. */
  private working?: { state: JournaledState; vm?: VM; txs: IncludedTx[] };
  /** Plain transfers without the EVM, where this block's fork is covered. */
  private readonly transfers?: PlainTransfers;
  private txs: IncludedTx[] = [];
  /** Gas of the published and the staged transactions (what the next one executes after). */
  private gasUsed = 0n;
  /** Gas of the published transactions only (the snapshot's header). */
  private publishedGas = 0n;
  /**
   * Storage and code the published layers changed, for the seal's flat-state write (copy-on-write
   * per slot map). Accounts are not kept here: the IncrementalStateRoot holds them, with their
   * storage roots.
   */
  private readonly merged: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
  /** The header's roots and bloom, advanced by each publish over what it added only. */
  private stateRoot: IncrementalStateRoot;
  /**
   * The working layer's root, computed ahead between staging passes (`rootAhead`) on a fork:
   * `prepare` then folds in only what changed since. Dropped with the layer.
   */
  private ahead?: { layer: JournaledState; stateRoot: IncrementalStateRoot };
  private readonly txTrie = new AppendOnlyOrderedTrie();
  private readonly receiptTrie = new AppendOnlyOrderedTrie();
  private readonly bloom = new Uint8Array(256);
  /** The working layer holds a dev method's change (see `edit`); published ones: `editsPublished`. */
  private edited = false;
  private editsPublished = false;
  snapshot: PendingSnapshot;

  constructor(
    private readonly ctx: ChainContext,
    readonly parent: Block,
    timestamp: bigint,
    extraData: Uint8Array,
    /** The account trie at the parent's state root, nodes in memory (from the parent's seal). */
    warm?: StateTrie,
    overrides: HeaderOverrides = {},
  ) {
    this.top = ctx.flat;
    this.stateRoot = new IncrementalStateRoot(
      localRoot(parent.header.stateRoot, ctx.fork),
      ctx.nodes,
      warm,
      ctx.fork !== undefined,
    );
    const p = parent.header;
    const common = ctx.spec.common.copy();
    common.setHardforkBy({ blockNumber: p.number + 1n, timestamp });
    this.execBlock = createBlock(
      {
        header: {
          parentHash: parent.hash(),
          number: p.number + 1n,
          timestamp,
          gasLimit: overrides.gasLimit ?? p.gasLimit,
          coinbase: overrides.coinbase ?? new Uint8Array(20),
          // prevRandao: deterministic but changing per block.
          mixHash: overrides.prevRandao ?? keccak256(parent.hash()),
          difficulty: 0n,
          extraData,
          // Only the fields the block's forks have (a geth chain may still be before London).
          baseFeePerGas: common.isActivatedEIP(1559)
            ? (overrides.baseFee ?? nextBaseFee(p, ctx.spec.baseFee))
            : undefined,
          // 0 on wharf's own chains (no blobs ever); an imported chain continues its parent's.
          excessBlobGas: common.isActivatedEIP(4844)
            ? p.common.isActivatedEIP(4844)
              ? p.calcNextExcessBlobGas(common)
              : 0n
            : undefined,
          blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    this.header = this.execBlock.header;
    this.transfers = PlainTransfers.for(common, this.header);
    this.snapshot = this.makeSnapshot(0, [], new Map());
  }

  get number(): bigint {
    return this.header.number;
  }
  get baseFee(): bigint {
    return this.header.baseFeePerGas ?? 0n;
  }
  /** Gas the block still has for the published and staged transactions' successors. */
  get gasLeft(): bigint {
    return this.header.gasLimit - this.gasUsed;
  }
  /** Loads the state-trie paths of accounts about to change (see IncrementalStateRoot.warm). */
  warmRoot(addresses: Uint8Array[]): Promise<void> {
    return this.stateRoot.warm(addresses);
  }
  /** The working layer's state (what the pool should validate against while a flashblock runs). */
  get state(): StateReader {
    return this.top;
  }
  /** Transactions executed into the flashblock being built, not yet published. */
  get staged(): readonly IncludedTx[] {
    return this.working?.txs ?? [];
  }

  /**
   * Executes one transaction into the flashblock being built, or reports why it cannot go in.
   * `known` carries what the pool already established (encoding, recovered sender), saving a
   * second recovery.
   */
  add(
    tx: TypedTransaction,
    known?: { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array },
  ): Promise<AddOutcome> {
    return this.execute({ tx }, transferFields(tx), known);
  }

  /**
   * `add` for a pool transaction: its @ethereumjs/tx object is built only if execution needs it
   * (not a plain transfer) or a reader asks for it (`IncludedTx.tx`, the snapshot's block).
   */
  addPooled(
    t: LazyTransaction,
    known: { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array },
  ): Promise<AddOutcome> {
    return this.execute(t, t, known);
  }

  private async execute(
    source: { readonly tx: TypedTransaction },
    fields: TransferFields,
    known?: { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array },
  ): Promise<AddOutcome> {
    if (this.gasUsed + fields.gasLimit > this.header.gasLimit)
      return { ok: false, reason: 'block gas limit reached', retry: true };
    this.working ??= { state: new JournaledState(this.top), txs: [] };
    const w = this.working;
    try {
      const sender = known?.sender ?? source.tx.getSenderAddress().bytes;
      const r =
        (await this.transfers?.apply(w.state, fields, sender, this.gasUsed)) ??
        (await this.runInVm(w, source.tx, known));
      this.gasUsed += r.totalGasSpent;
      const included: IncludedTx = new Included(
        source,
        known?.raw ?? source.tx.serialize(),
        known?.hash ?? source.tx.hash(),
        sender,
        r.receipt,
        r.encodedReceipt,
        r.totalGasSpent,
      );
      w.txs.push(included);
      return { ok: true, included };
    } catch (e) {
      // A fork's remote that did not answer: the transaction stays in the pool for the next try.
      if (e instanceof ForkError) return { ok: false, reason: e.message, retry: true };
      return { ok: false, reason: (e as Error).message.split(' (block=')[0], retry: false };
    }
  }

  /** Runs `tx` through the EVM (runTx), on the flashblock's VM. */
  private async runInVm(
    w: NonNullable<PendingBlock['working']>,
    tx: TypedTransaction,
    known: { sender: Uint8Array } | undefined,
  ): Promise<{ totalGasSpent: bigint; receipt: StoredReceipt; encodedReceipt: Uint8Array }> {
    w.vm ??= await createVm(this.ctx.spec.common, w.state, this.ctx.blocks, {
      number: this.header.number,
      timestamp: this.header.timestamp,
    });
    const r = await runTx(w.vm, {
      tx: known ? withKnownSender(tx, new Address(known.sender)) : tx,
      block: this.execBlock,
      blockGasUsed: this.gasUsed,
      skipHardForkValidation: true,
    });
    const encodedReceipt = encodeReceipt(r.receipt, tx.type);
    return { totalGasSpent: r.totalGasSpent, receipt: decodeReceipt(encodedReceipt), encodedReceipt };
  }

  /**
   * A dev method's state change (anvil_setBalance, ...), applied to the flashblock being built:
   * published with it, like a transaction's effects, though it is no transaction. Consumer:
   * builder/devControls.ts through the producer's queue.
   */
  async edit(change: (state: JournaledState) => Promise<void>): Promise<void> {
    this.working ??= { state: new JournaledState(this.top), txs: [] };
    await change(this.working.state);
    this.edited = true;
  }

  /** Whether anything (a transaction or a dev method's change) was pre-confirmed in this block. */
  get touched(): boolean {
    return this.txs.length > 0 || this.editsPublished || this.edited;
  }

  /** Drops the flashblock being built (its journal write failed): nothing of it was seen. */
  discard(): void {
    if (!this.working) return;
    for (const t of this.working.txs) this.gasUsed -= t.gasUsed;
    this.working = undefined;
    this.ahead = undefined;
    this.edited = false;
  }

  /**
   * Computes the state root the flashblock being built will publish, on a fork of the block's
   * root: nothing changes here, so it can run while the journal write is still on its way to
   * the disk (a failed write then just drops it). Pass the result to `publish`. Undefined when
   * nothing is staged.
   */
  async prepare(): Promise<PreparedRoot | undefined> {
    const w = this.working;
    if (!w?.txs.length) return undefined;
    const stateRoot = await this.foldAhead(w.state);
    this.ahead = undefined;
    return { layer: w.state, txCount: w.txs.length, stateRoot };
  }

  /**
   * Folds what has been staged so far into the flashblock's root, ahead of `prepare`: the root's
   * work (trie reads, hashing) is spread over the interval instead of falling on the flashblock's
   * deadline. Call only between transactions (no `add` under way).
   * docs/decisions/0034-fold-root-ahead-and-stop-at-deadline.md.
   */
  async rootAhead(): Promise<void> {
    const w = this.working;
    if (w?.txs.length) await this.foldAhead(w.state);
  }

  /** The working layer's root so far, on the fork kept for it (see `ahead`). */
  private async foldAhead(layer: JournaledState): Promise<IncrementalStateRoot> {
    const kept = this.ahead?.layer === layer ? this.ahead : undefined;
    // Everything changed so far goes into a new fork; into the kept one, what changed since.
    const changed = layer.takeChanged();
    const ahead = kept ?? { layer, stateRoot: this.stateRoot.fork() };
    this.ahead = undefined; // half-folded if this fails: the next call starts over
    await ahead.stateRoot.apply(layer.diff(), layer, kept ? changed : undefined);
    this.ahead = ahead;
    return ahead.stateRoot;
  }

  /**
   * Freezes the flashblock being built and makes it what `pending` reads see. Call only after
   * the journal has its transactions on disk; `prepared` is its root from `prepare()`, else it
   * is computed here. Returns the new snapshot.
   */
  async publish(index: number, prepared?: PreparedRoot): Promise<PendingSnapshot> {
    const w = this.working;
    this.working = undefined;
    this.ahead = undefined;
    const added = w?.txs ?? [];
    const changed = new Map<string, { balance: bigint } | undefined>();
    const edited = this.edited;
    this.edited = false;
    if (edited) this.editsPublished = true;
    if (w && (added.length || edited)) {
      const diff = w.state.diff();
      this.fold(diff);
      for (const [k, a] of diff.accounts) changed.set(k, a ? { balance: a.balance } : undefined);
      this.top = w.state;
      this.txs = [...this.txs, ...added];
      for (const t of added) this.publishedGas += t.gasUsed;
      if (prepared?.layer === w.state && prepared.txCount === added.length)
        this.stateRoot = prepared.stateRoot;
      else await this.stateRoot.apply(diff, w.state);
      this.txTrie.append(added.map((t) => t.raw));
      this.receiptTrie.append(added.map((t) => t.encodedReceipt));
      // A receipt without logs has an empty bloom: nothing to fold.
      for (const t of added)
        if (t.receipt.logs.length) for (let i = 0; i < 256; i++) this.bloom[i] |= t.receipt.bloom[i];
    }
    if (!added.length && !edited && index > 0) {
      // Nothing new: the same partial block under the next index.
      this.snapshot = { ...this.snapshot, index, added, changedAccounts: changed };
      return this.snapshot;
    }
    this.snapshot = this.makeSnapshot(index, added, changed);
    return this.snapshot;
  }

  /**
   * Assembles the sealed block from the published transactions (anything staged and not
   * published is not part of it). `commit()` then writes it.
   */
  async prepareSeal(): Promise<{
    block: Block;
    txs: IncludedTx[];
    /**
     * Moves the head at once; `durable` settles when the block is on disk. Its batch is filled
     * once `fillAfter` settles (at once without it).
     */
    commit: (fillAfter?: Promise<unknown>, journal?: JournalRange) => Promise<{ durable: Promise<void> }>;
    /** The account trie at the sealed root: the next block's `warm`. */
    trie: StateTrie;
    /** What the block changed: accounts (0x-lowercase) and, per account, slots (0x 32-byte). */
    changed: SealedChanges;
  }> {
    // The last snapshot is exactly the published transactions: its header is the seal's. The
    // sealed block reads its transactions' objects from their bytes (lazyTransactions.ts), not
    // through the pending entries: those hold the pool transactions and receipts (0500). A blob
    // transaction's entry is kept (its `raw` is the network form, with the sidecar).
    const { txs, header } = this.snapshot;
    const block = new Block(
      header,
      transactionsOf(
        txs.map((t) => (t.raw[0] === 3 ? t : new TransactionFromBytes(t.raw, t.hash, header.common))),
      ),
      [],
      this.snapshot.block.withdrawals,
      { common: header.common },
    );
    const root: RootResult = this.stateRoot.finish();
    const rlp = encodeBlock(
      block.header.raw(),
      txs.map((t) => t.raw),
      block.header.common.isActivatedEIP(4895),
    );
    const merged = this.merged;
    const commit = (fillAfter?: Promise<unknown>, journal?: JournalRange) =>
      commitBlock(
        this.ctx,
        {
          block,
          rlp,
          journal,
          receipts: txs.map((t) => t.encodedReceipt),
          senders: txs.map((t) => t.sender),
          txHashes: txs.map((t) => t.hash),
        },
        { diff: () => merged },
        root,
        fillAfter,
      );
    const changed: SealedChanges = { accounts: [...root.accounts.keys()], storage: new Map() };
    for (const [k, o] of merged.storage)
      changed.storage.set(k, { cleared: o.cleared, slots: [...o.slots.keys()] });
    return { block, txs: [...txs], commit, trie: root.trie, changed };
  }

  /** The partial block's header: roots and bloom as of the last publish. */
  private headerNow(): BlockHeader {
    const h = this.header;
    return createBlockHeader(
      {
        ...h.toJSON(),
        stateRoot: this.stateRoot.root,
        transactionsTrie: this.txTrie.root(),
        receiptTrie: this.receiptTrie.root(),
        logsBloom: this.bloom.slice(),
        gasUsed: this.publishedGas,
      },
      { common: h.common, skipConsensusFormatValidation: true },
    );
  }

  private makeSnapshot(
    index: number,
    added: readonly IncludedTx[],
    changedAccounts: PendingSnapshot['changedAccounts'],
  ): PendingSnapshot {
    const txs = this.txs;
    const header = this.headerNow();
    return {
      index,
      number: this.header.number,
      parent: this.parent,
      header,
      block: new Block(
        header,
        // Built when read (an RPC view, a waiter's answer), not per flashblock: see lazyTransactions.ts.
        transactionsOf(txs),
        [],
        header.common.isActivatedEIP(4895) ? [] : undefined,
        { common: header.common },
      ),
      state: this.top,
      txs,
      added,
      gasUsed: header.gasUsed,
      baseFee: this.baseFee,
      changedAccounts,
    };
  }

  /** Folds a frozen layer's diff into `merged` (own copies of slot maps: layers stay intact). */
  private fold(d: StateDiff): void {
    for (const [h, c] of d.code) this.merged.code.set(h, c);
    for (const [k, o] of d.storage) {
      const have = this.merged.storage.get(k);
      if (o.cleared || !have) this.merged.storage.set(k, { cleared: o.cleared, slots: new Map(o.slots) });
      else for (const [s, v] of o.slots) have.slots.set(s, v);
    }
  }
}

/**
 * The pool verified the signature and recovered the sender: runTx asks the transaction again
 * (a second secp256k1 recovery, ~a third of execution time). A view of the frozen transaction
 * that answers getSenderAddress from what we know.
 */
function withKnownSender(tx: TypedTransaction, sender: Address): TypedTransaction {
  return new Proxy(tx, {
    get(target, key, receiver) {
      if (key === 'getSenderAddress') return () => sender;
      return Reflect.get(target, key, receiver);
    },
  });
}
