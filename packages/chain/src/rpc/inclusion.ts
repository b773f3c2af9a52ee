/**
 * Waiting for a transaction to be pre-confirmed or sealed, for eth_sendRawTransactionSync and
 * the short receipt hold of eth_getTransactionReceipt (decision 0121).
 *
 *   builder: flashblock shown | block sealed ─> next() resolves (one shared promise, O(1) per event)
 *   waiter:  findTx ─ found? ─> done
 *                  └─ no ─> await next() or its deadline ─> after a flashblock: a map lookup
 *                                                           in the pending block; after a
 *                                                           seal: findTx again ...
 *
 * Every waiter looks again after each event rather than being matched against the flashblock's
 * transactions: the builder's publication path stays constant-time whatever the number of
 * waiters. After a flashblock a look is one lookup in a per-snapshot index (no storage read:
 * thousands of waiters reading LevelDB at every flashblock starved the builder at 1,000 tx/s).
 */
import type { BlockProducer } from '../builder/blockProducer.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { type BlockView, findTx, type TxFound } from './chainReads.js';
import type { RpcContext } from './context.js';

/** The longest a receipt request for a pooled transaction is held (decision 0121). */
export const MAX_RECEIPT_HOLD_MS = 1000;

type Event = 'flashblock' | 'seal';

/** Index of each pre-confirmed transaction (hex hash) in a snapshot, built once when asked. */
const indexes = new WeakMap<PendingSnapshot, Map<string, number>>();
function indexOf(s: PendingSnapshot, hash: string): number | undefined {
  let m = indexes.get(s);
  if (!m) {
    m = new Map(s.txs.map((t, i) => [Buffer.from(t.hash).toString('hex'), i]));
    indexes.set(s, m);
  }
  return m.get(hash);
}

export class InclusionWatch {
  private next?: { promise: Promise<Event>; resolve: (e: Event) => void };
  /** When the last four flashblocks or seals happened (Date.now()), newest last. */
  private readonly shown: number[] = [];

  constructor(producer: Pick<BlockProducer, 'onFlashblock' | 'onSealed'>) {
    producer.onFlashblock(() => this.event('flashblock'));
    producer.onSealed(() => this.event('seal'));
  }

  private event(kind: Event): void {
    this.shown.push(Date.now());
    if (this.shown.length > 4) this.shown.shift();
    const n = this.next;
    this.next = undefined;
    n?.resolve(kind);
  }

  /** Resolves at the next flashblock or seal, saying which. */
  nextEvent(): Promise<Event> {
    if (!this.next) {
      let resolve!: (e: Event) => void;
      const promise = new Promise<Event>((r) => {
        resolve = r;
      });
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  /**
   * How long a receipt request for a pooled transaction may wait for it: four of the intervals
   * the builder is showing flashblocks at (a transaction that arrives during one build goes into
   * the next, and a builder behind under load may leave it to the one after), at most
   * MAX_RECEIPT_HOLD_MS; 0 when nothing was shown lately (no mining, or
   * `blockTime: 0`, where a transaction is sealed at once or never).
   */
  receiptHoldMs(now = Date.now()): number {
    if (this.shown.length < 2) return 0;
    // The widest recent gap is the pace: a seal, the block's last flashblock and the next block's
    // first one come milliseconds apart, and reading the pace off them made the hold ~0.
    let interval = 0;
    for (let i = 1; i < this.shown.length; i++)
      interval = Math.max(interval, this.shown[i] - this.shown[i - 1]);
    if (interval <= 0 || now - this.shown[this.shown.length - 1] > 2 * interval) return 0;
    return Math.min(4 * interval + 20, MAX_RECEIPT_HOLD_MS);
  }

  /** The transaction once pre-confirmed or sealed, or undefined at the deadline (ms from now). */
  async waitFor(c: RpcContext, hash: Uint8Array, ms: number): Promise<TxFound | undefined> {
    const deadline = Date.now() + ms;
    const key = Buffer.from(hash).toString('hex');
    // Taken before each look: an event during the look still wakes this waiter.
    let next = this.nextEvent();
    let found = await findTx(c, hash);
    for (;;) {
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const event = await Promise.race([
        next,
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        }),
      ]);
      clearTimeout(timer);
      next = this.nextEvent();
      if (event === 'flashblock') found = inPending(c, key);
      else found = await findTx(c, hash);
      if (event === 'timeout') return found;
    }
  }
}

/** The pending block's view, made once per snapshot for all waiters (as the reader makes it). */
const views = new WeakMap<PendingSnapshot, BlockView>();
function viewOf(s: PendingSnapshot): BlockView {
  let v = views.get(s);
  if (!v) {
    v = {
      block: s.block,
      senders: s.txs.map((t) => t.sender),
      receipts: async () => s.txs.map((t) => t.receipt),
      pending: true,
    };
    views.set(s, v);
  }
  return v;
}

/** The transaction in the block being built, found without reading storage. */
function inPending(c: RpcContext, key: string): TxFound | undefined {
  const s = c.producer.pending;
  const i = indexOf(s, key);
  if (i === undefined) return undefined;
  const view = viewOf(s);
  return { view, index: i, tx: s.block.transactions[i] };
}

const watches = new WeakMap<RpcContext, InclusionWatch>();

/** The node's InclusionWatch, made on first use (one listener pair per node). */
export function inclusionOf(c: RpcContext): InclusionWatch {
  let w = watches.get(c);
  if (!w) {
    w = new InclusionWatch(c.producer);
    watches.set(c, w);
  }
  return w;
}
