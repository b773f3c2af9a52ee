/**
 * Waiting for a transaction to be pre-confirmed or sealed, for eth_sendRawTransactionSync and
 * the short receipt hold of eth_getTransactionReceipt (decision 0121).
 *
 *   waiter:  registers under its hash ─> findTx (already in?) ─> waits for its wake-up or deadline
 *   builder: flashblock shown ─> for each transaction it added, the waiters under that hash are
 *            answered from the snapshot (no storage read)
 *            block sealed ─> the waiters of its transactions look them up (findTx)
 *   flashblock built, waiting for its showing ─> the receipts its waiters will get are rendered
 *            then, in the time left (decision 0510): at the showing, the answers only go out
 *
 * The builder's publication path costs one map lookup per transaction a flashblock added,
 * whatever the number of waiters (decision 0122); a waiter costs a map entry and a timer.
 */
import type { Block } from '@ethereumjs/block';
import { performance } from 'node:perf_hooks';
import type { IncludedTx, PendingSnapshot } from '../builder/pendingBlock.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import { type BlockView, findTx, type TxFound } from './chainReads.js';
import type { Producer, RpcContext } from './context.js';
import { defaultRpcLimits } from './limits.js';
import { blobGasPriceOf, receiptIn } from './receipts.js';

/** The longest a receipt request for a pooled transaction is held, by default (decision 0121). */
export const MAX_RECEIPT_HOLD_MS = defaultRpcLimits.receiptHoldMs;

/** Found, with its receipt when it was rendered before the showing. */
export type Included = TxFound & { readonly receipt?: Record<string, unknown> };

/** A waiter's wake-up: found in a flashblock, or its block was sealed (look it up). */
type Wake = (found: Included | 'sealed') => void;

/** What rendering receipts before a showing leaves of the time until it (other listeners). */
const RENDER_MARGIN_MS = 2;

/** A transaction hash as a map key (hex of the 32 bytes). */
function keyOf(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex');
}

export class InclusionWatch {
  /** Waiters by transaction hash (keyOf). */
  private readonly waiting = new Map<string, Set<Wake>>();
  /** When the last four flashblocks or seals happened (Date.now()), newest last. */
  private readonly shown: number[] = [];
  /** Receipts rendered for the waiters of a built flashblock, by index in its block. */
  private rendered?: { snapshot: PendingSnapshot; receipts: Map<number, Record<string, unknown>> };

  constructor(
    private readonly producer: Pick<Producer, 'onFlashblock' | 'onFlashblockBuilt' | 'onSealed' | 'pending'>,
    /** The longest receipt hold (`receiptHoldMs`), ms. */
    private readonly maxReceiptHoldMs = MAX_RECEIPT_HOLD_MS,
    /**
     * For a pending view, what renders its receipts by index (receipts.ts receiptIn, with what
     * they all share worked out once); none: the waiters render their own.
     */
    private readonly renderer?: (
      view: BlockView,
      receipts: readonly StoredReceipt[],
    ) => (index: number) => Record<string, unknown>,
  ) {
    producer.onFlashblock((s) => this.flashblock(s));
    producer.onSealed((block, txs) => this.sealed(block, txs));
    if (renderer) producer.onFlashblockBuilt((s, msLeft) => this.built(s, msLeft));
  }

  /** How many requests are waiting (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  private stamp(): void {
    this.shown.push(Date.now());
    if (this.shown.length > 4) this.shown.shift();
  }

  /**
   * A flashblock is built and waits for its showing: its waiters' receipts are rendered now,
   * while the thread would wait, as far as the time left allows (the rest at the showing). At
   * 1,000 transactions/s, ~200 answers rendered at the showing held the first of them back by
   * milliseconds (decision 0510).
   */
  private built(s: PendingSnapshot, msLeft: number): void {
    this.rendered = undefined;
    if (!this.waiting.size || !s.added.length || !this.renderer) return;
    const until = performance.now() + msLeft - RENDER_MARGIN_MS;
    const receipts = new Map<number, Record<string, unknown>>();
    this.rendered = { snapshot: s, receipts };
    const { view, receipts: all } = pendingView(s);
    const render = this.renderer(view, all);
    const first = s.txs.length - s.added.length;
    for (let j = 0; j < s.added.length && performance.now() < until; j++)
      if (this.waiting.has(keyOf(s.added[j].hash))) receipts.set(first + j, render(first + j));
  }

  private flashblock(s: PendingSnapshot): void {
    this.stamp();
    const rendered = this.rendered?.snapshot === s ? this.rendered.receipts : undefined;
    this.rendered = undefined;
    // Not what readers see (blockTime 0 shows a block's transaction only once it is sealed): the
    // seal wakes its waiters.
    if (!this.waiting.size || !s.added.length || this.producer.pending !== s) return;
    const first = s.txs.length - s.added.length;
    for (let j = 0; j < s.added.length; j++) {
      const set = this.waiting.get(keyOf(s.added[j].hash));
      if (!set) continue;
      const index = first + j;
      const found: Included = {
        view: pendingView(s).view,
        index,
        // Read only if asked: a transaction's object is built on first read (~8 µs,
        // builder/lazyTransactions.ts), and an answer with its receipt rendered never reads it.
        get tx() {
          return s.block.transactions[index];
        },
        receipt: rendered?.get(index),
      };
      for (const wake of set) wake(found);
    }
  }

  private sealed(block: Block, txs: readonly IncludedTx[]): void {
    this.stamp();
    if (!this.waiting.size) return;
    // A follower's imported block comes without the builder's list: its transactions' hashes.
    const hashes = txs.length ? txs.map((t) => t.hash) : block.transactions.map((t) => t.hash());
    for (const h of hashes) {
      const set = this.waiting.get(keyOf(h));
      if (set) for (const wake of set) wake('sealed');
    }
  }

  /**
   * How long a receipt request for a pooled transaction may wait for it: four of the intervals
   * the builder is showing flashblocks at (a transaction that arrives during one build goes into
   * the next, and a builder behind under load may leave it to the one after), at most the
   * configured maximum; 0 when nothing was shown lately (no mining, or `blockTime: 0`, where a
   * transaction is sealed at once or never).
   */
  receiptHoldMs(now = Date.now()): number {
    if (this.shown.length < 2 || this.maxReceiptHoldMs <= 0) return 0;
    // The widest recent gap is the pace: a seal, the block's last flashblock and the next block's
    // first one come milliseconds apart, and reading the pace off them made the hold ~0.
    let interval = 0;
    for (let i = 1; i < this.shown.length; i++)
      interval = Math.max(interval, this.shown[i] - this.shown[i - 1]);
    if (interval <= 0 || now - this.shown[this.shown.length - 1] > 2 * interval) return 0;
    return Math.min(4 * interval + 20, this.maxReceiptHoldMs);
  }

  /**
   * The transaction once pre-confirmed or sealed, or undefined at the deadline (ms from now;
   * 0: one look).
   */
  async waitFor(c: RpcContext, hash: Uint8Array, ms: number): Promise<Included | undefined> {
    const deadlineAt = Date.now() + ms;
    const key = keyOf(hash);
    let wake!: Wake;
    const woken = new Promise<Included | 'sealed'>((r) => {
      wake = r;
    });
    // Registered before the first look: a flashblock or seal during the look still wakes it.
    let set = this.waiting.get(key);
    if (!set) {
      set = new Set();
      this.waiting.set(key, set);
    }
    set.add(wake);
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = await Promise.race([findTx(c, hash), woken]);
      if (found === 'sealed') return await findTx(c, hash);
      const left = deadlineAt - Date.now();
      if (found || left <= 0) return found;
      const deadline = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), left);
      });
      const event = await Promise.race([woken, deadline]);
      // At the deadline, one last look (the seal that would have woken it may be under way).
      if (event === 'sealed' || event === 'timeout') return await findTx(c, hash);
      return event;
    } finally {
      clearTimeout(timer);
      set.delete(wake);
      if (!set.size && this.waiting.get(key) === set) this.waiting.delete(key);
    }
  }
}

/**
 * The pending block's view, made once per snapshot for all its waiters: its receipts are one
 * array, not one per request (a block of 2,000 transactions made 2,000 copies).
 */
interface PendingView {
  view: BlockView;
  /** The view's receipts, at hand (no await): what renderers read. */
  receipts: StoredReceipt[];
}
const views = new WeakMap<PendingSnapshot, PendingView>();
function pendingView(s: PendingSnapshot): PendingView {
  let v = views.get(s);
  if (!v) {
    const receipts = s.txs.map((t) => t.receipt);
    const view: BlockView = {
      block: s.block,
      senders: s.txs.map((t) => t.sender),
      receipts: async () => receipts,
      pending: true,
    };
    v = { view, receipts };
    views.set(s, v);
  }
  return v;
}

const watches = new WeakMap<RpcContext, InclusionWatch>();

/** The node's InclusionWatch, made on first use (one listener pair per node). */
export function inclusionOf(c: RpcContext): InclusionWatch {
  let w = watches.get(c);
  if (!w) {
    w = new InclusionWatch(c.producer, c.limits.receiptHoldMs, (view, receipts) => {
      const blobGasPrice = blobGasPriceOf(view);
      return (index) => receiptIn(c, view, receipts, index, blobGasPrice);
    });
    watches.set(c, w);
  }
  return w;
}
