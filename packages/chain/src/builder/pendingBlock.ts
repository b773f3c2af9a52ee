/**
 * The block being built, one flashblock at a time. Each flashblock executes into a fresh
 * overlay (a JournaledState) stacked on the previous one; `publish()` freezes it and makes a new
 * snapshot — the partial block with cumulative gas, roots and bloom — that `pending` reads see.
 * Readers hold a snapshot, never a half-built flashblock. The seal turns exactly the published
 * transactions, in order, into a real block.
 *
 *   flat (latest sealed) <- layer 1 <- layer 2 <- ... <- working layer (unpublished)
 *                           └──────── published ─────┘
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
import { createVm } from '../execution/vmFactory.js';
import { JournaledState, type StateDiff } from '../state/journaledState.js';
import { computeStateRoot, type RootResult } from '../state/stateRoot.js';
import type { StateReader } from '../state/stateReader.js';
import type { StateTrie } from '../state/trieAdapter.js';
import { decodeReceipt, type StoredReceipt } from '../storage/receiptCodec.js';
import { orderedTrieRoot } from '../trie/index.js';

export interface IncludedTx {
  tx: TypedTransaction;
  /** The signed encoding, as submitted. */
  raw: Uint8Array;
  hash: Uint8Array;
  sender: Uint8Array;
  receipt: StoredReceipt;
  encodedReceipt: Uint8Array;
  gasUsed: bigint;
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
  private working?: { state: JournaledState; vm: VM; txs: IncludedTx[] };
  private txs: IncludedTx[] = [];
  private gasUsed = 0n;
  /** Cumulative diff of the published layers over the flat state (copy-on-write per slot map). */
  private readonly merged: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
  /** Root of `merged` as of the last publish. */
  private root?: RootResult;
  snapshot: PendingSnapshot;

  constructor(
    private readonly ctx: ChainContext,
    readonly parent: Block,
    timestamp: bigint,
    extraData: Uint8Array,
    /** The account trie at the parent's state root, nodes in memory (from the parent's seal). */
    private readonly warm?: StateTrie,
  ) {
    this.top = ctx.flat;
    const p = parent.header;
    const common = ctx.spec.common.copy();
    common.setHardforkBy({ blockNumber: p.number + 1n, timestamp });
    this.execBlock = createBlock(
      {
        header: {
          parentHash: parent.hash(),
          number: p.number + 1n,
          timestamp,
          gasLimit: p.gasLimit,
          coinbase: new Uint8Array(20),
          // prevRandao: deterministic but changing per block.
          mixHash: keccak256(parent.hash()),
          difficulty: 0n,
          extraData,
          // Only the fields the block's forks have (a geth chain may still be before London).
          baseFeePerGas: common.isActivatedEIP(1559) ? nextBaseFee(p, ctx.spec.baseFee) : undefined,
          excessBlobGas: common.isActivatedEIP(4844) ? 0n : undefined,
          blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    this.header = this.execBlock.header;
    this.snapshot = this.makeSnapshot(0, [], p.stateRoot, new Map());
  }

  get number(): bigint {
    return this.header.number;
  }
  get baseFee(): bigint {
    return this.header.baseFeePerGas ?? 0n;
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
  async add(
    tx: TypedTransaction,
    known?: { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array },
  ): Promise<AddOutcome> {
    if (this.gasUsed + tx.gasLimit > this.header.gasLimit)
      return { ok: false, reason: 'block gas limit reached', retry: true };
    if (!this.working) {
      const state = new JournaledState(this.top);
      const vm = await createVm(this.ctx.spec.common, state, this.ctx.blocks, {
        number: this.header.number,
        timestamp: this.header.timestamp,
      });
      this.working = { state, vm, txs: [] };
    }
    const w = this.working;
    try {
      const r = await runTx(w.vm, {
        tx: known ? withKnownSender(tx, new Address(known.sender)) : tx,
        block: this.execBlock,
        blockGasUsed: this.gasUsed,
        skipHardForkValidation: true,
      });
      this.gasUsed += r.totalGasSpent;
      const encodedReceipt = encodeReceipt(r.receipt, tx.type);
      const included: IncludedTx = {
        tx,
        raw: known?.raw ?? tx.serialize(),
        hash: known?.hash ?? tx.hash(),
        sender: known?.sender ?? tx.getSenderAddress().bytes,
        receipt: decodeReceipt(encodedReceipt),
        encodedReceipt,
        gasUsed: r.totalGasSpent,
      };
      w.txs.push(included);
      return { ok: true, included };
    } catch (e) {
      return { ok: false, reason: (e as Error).message.split(' (block=')[0], retry: false };
    }
  }

  /** Drops the flashblock being built (its journal write failed): nothing of it was seen. */
  discard(): void {
    if (!this.working) return;
    for (const t of this.working.txs) this.gasUsed -= t.gasUsed;
    this.working = undefined;
  }

  /**
   * Freezes the flashblock being built and makes it what `pending` reads see. Call only after
   * the journal has its transactions on disk. Returns the new snapshot.
   */
  async publish(index: number): Promise<PendingSnapshot> {
    const w = this.working;
    this.working = undefined;
    const added = w?.txs ?? [];
    const changed = new Map<string, { balance: bigint } | undefined>();
    if (w && added.length) {
      const diff = w.state.diff();
      this.fold(diff);
      for (const [k, a] of diff.accounts) changed.set(k, a ? { balance: a.balance } : undefined);
      this.top = w.state;
      this.txs = [...this.txs, ...added];
      this.root = await this.computeRoot();
    }
    if (!added.length && index > 0) {
      // Nothing new: the same partial block under the next index.
      this.snapshot = { ...this.snapshot, index, added, changedAccounts: changed };
      return this.snapshot;
    }
    const stateRoot = this.root?.root ?? this.parent.header.stateRoot;
    this.snapshot = this.makeSnapshot(index, added, stateRoot, changed);
    return this.snapshot;
  }

  /**
   * Assembles the sealed block from the published transactions (anything staged and not
   * published is not part of it). `commit()` then writes it.
   */
  async prepareSeal(): Promise<{
    block: Block;
    txs: IncludedTx[];
    commit: () => Promise<void>;
    /** The account trie at the sealed root: the next block's `warm`. */
    trie: StateTrie;
  }> {
    const root = this.root ?? (await this.computeRoot());
    const txs = this.txs;
    // The last snapshot is this very block when its root is the one we seal with.
    const snap = this.snapshot;
    const reuse = snap.txs === txs && this.root === root;
    const header = reuse ? snap.header : this.headerWith(txs, root.root);
    // The Block constructor keeps the executed transaction objects (createBlock rebuilds them).
    const shanghai = header.common.isActivatedEIP(4895);
    const block = reuse
      ? snap.block
      : new Block(
          header,
          txs.map((t) => t.tx),
          [],
          shanghai ? [] : undefined,
          { common: header.common },
        );
    const rlp = encodeBlock(
      header.raw(),
      txs.map((t) => t.raw),
      shanghai,
    );
    const merged = this.merged;
    const commit = () =>
      commitBlock(
        this.ctx,
        { block, rlp, receipts: txs.map((t) => t.encodedReceipt), senders: txs.map((t) => t.sender) },
        { diff: () => merged },
        root,
      );
    return { block, txs: [...txs], commit, trie: root.trie };
  }

  /** Root of the cumulative diff, on a copy of the warm trie (cold from the store without one). */
  private computeRoot(): Promise<RootResult> {
    return computeStateRoot(
      this.parent.header.stateRoot,
      this.ctx.flat,
      this.merged,
      this.ctx.nodes,
      this.warm?.copy(),
    );
  }

  private headerWith(txs: readonly IncludedTx[], stateRoot: Uint8Array): BlockHeader {
    const bloom = new Uint8Array(256);
    let gasUsed = 0n;
    for (const t of txs) {
      for (let i = 0; i < 256; i++) bloom[i] |= t.receipt.bloom[i];
      gasUsed += t.gasUsed;
    }
    const h = this.header;
    return createBlockHeader(
      {
        ...h.toJSON(),
        stateRoot,
        transactionsTrie: orderedTrieRoot(txs.map((t) => t.raw)),
        receiptTrie: orderedTrieRoot(txs.map((t) => t.encodedReceipt)),
        logsBloom: bloom,
        gasUsed,
      },
      { common: h.common, skipConsensusFormatValidation: true },
    );
  }

  private makeSnapshot(
    index: number,
    added: readonly IncludedTx[],
    stateRoot: Uint8Array,
    changedAccounts: PendingSnapshot['changedAccounts'],
  ): PendingSnapshot {
    const txs = this.txs;
    const header = this.headerWith(txs, stateRoot);
    return {
      index,
      number: this.header.number,
      parent: this.parent,
      header,
      block: new Block(
        header,
        txs.map((t) => t.tx),
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
    for (const [k, a] of d.accounts) this.merged.accounts.set(k, a);
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
