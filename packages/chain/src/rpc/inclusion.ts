/**
 * Waiting for a transaction to be pre-confirmed or sealed, for eth_sendRawTransactionSync and
 * the short receipt hold of eth_getTransactionReceipt (decision 0121).
 *
 *   waiter:  registers under its hash ─> findTx (already in?) ─> waits for its wake-up or deadline
 *   builder: flashblock shown ─> for each transaction it added, the waiters under that hash are
 *            answered from the snapshot (no storage read)
 *            block sealed ─> the waiters of its transactions look them up (findTx)
 *
 * The builder's publication path costs one map lookup per transaction a flashblock added,
 * whatever the number of waiters (decision 0122); a waiter costs a map entry and a timer.
 */
import type { Block } from '@ethereumjs/block';
import type { IncludedTx, PendingSnapshot } from '../builder/pendingBlock.js';
import { type BlockView, findTx, type TxFound } from './chainReads.js';
import type { Producer, RpcContext } from './context.js';
import { defaultRpcLimits } from './limits.js';

/** The longest a receipt request for a pooled transaction is held, by default (decision 0121). */
export const MAX_RECEIPT_HOLD_MS = defaultRpcLimits.receiptHoldMs;

/** A waiter's wake-up: found in a flashblock, or its block was sealed (look it up). */
type Wake = (found: TxFound | 'sealed') => void;

/** A transaction hash as a map key (hex of the 32 bytes). */
function keyOf(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex');
}

export class InclusionWatch {
  /** Waiters by transaction hash (keyOf). */
  private readonly waiting = new Map<string, Set<Wake>>();
  /** When the last four flashblocks or seals happened (Date.now()), newest last. */
  private readonly shown: number[] = [];

  constructor(
    private readonly producer: Pick<Producer, 'onFlashblock' | 'onSealed' | 'pending'>,
    /** The longest receipt hold (`receiptHoldMs`), ms. */
    private readonly maxReceiptHoldMs = MAX_RECEIPT_HOLD_MS,
  ) {
    producer.onFlashblock((s) => this.flashblock(s));
    producer.onSealed((block, txs) => this.sealed(block, txs));
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

  private flashblock(s: PendingSnapshot): void {
    this.stamp();
    // Not what readers see (blockTime 0 shows a block's transaction only once it is sealed): the
    // seal wakes its waiters.
    if (!this.waiting.size || !s.added.length || this.producer.pending !== s) return;
    const first = s.txs.length - s.added.length;
    for (let j = 0; j < s.added.length; j++) {
      const set = this.waiting.get(keyOf(s.added[j].hash));
      if (!set) continue;
      const index = first + j;
      const found: TxFound = { view: viewOf(s), index, tx: s.block.transactions[index] };
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
  async waitFor(c: RpcContext, hash: Uint8Array, ms: number): Promise<TxFound | undefined> {
    const deadlineAt = Date.now() + ms;
    const key = keyOf(hash);
    let wake!: Wake;
    const woken = new Promise<TxFound | 'sealed'>((r) => {
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
const views = new WeakMap<PendingSnapshot, BlockView>();
function viewOf(s: PendingSnapshot): BlockView {
  let v = views.get(s);
  if (!v) {
    const receipts = s.txs.map((t) => t.receipt);
    v = {
      block: s.block,
      senders: s.txs.map((t) => t.sender),
      receipts: async () => receipts,
      pending: true,
    };
    views.set(s, v);
  }
  return v;
}

const watches = new WeakMap<RpcContext, InclusionWatch>();

/** The node's InclusionWatch, made on first use (one listener pair per node). */
export function inclusionOf(c: RpcContext): InclusionWatch {
  let w = watches.get(c);
  if (!w) {
    w = new InclusionWatch(c.producer, c.limits.receiptHoldMs);
    watches.set(c, w);
  }
  return w;
}
