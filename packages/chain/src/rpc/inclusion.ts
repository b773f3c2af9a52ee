/**
 * Waiting for a transaction to be pre-confirmed or sealed, for eth_sendRawTransactionSync and
 * the short receipt hold of eth_getTransactionReceipt (decision 0121).
 *
 *   builder: flashblock shown | block sealed ─> next() resolves (one shared promise, O(1) per event)
 *   waiter:  findTx ─ found? ─> done
 *                  └─ no ─> await next() or its deadline ─> findTx again ...
 *
 * Every waiter looks again after each flashblock rather than being matched against the
 * flashblock's transactions: the builder's publication path stays constant-time whatever the
 * number of waiters, and a look is one map lookup in the pending snapshot (plus one LevelDB
 * read of the transaction index).
 */
import type { BlockProducer } from '../builder/blockProducer.js';
import { findTx, type TxFound } from './chainReads.js';
import type { RpcContext } from './context.js';

/** The longest a receipt request for a pooled transaction is held (decision 0121). */
export const MAX_RECEIPT_HOLD_MS = 1000;

export class InclusionWatch {
  private next?: { promise: Promise<void>; resolve: () => void };
  /** When the last two flashblocks or seals happened (Date.now()), newest last. */
  private readonly shown: number[] = [];

  constructor(producer: Pick<BlockProducer, 'onFlashblock' | 'onSealed'>) {
    producer.onFlashblock(() => this.event());
    producer.onSealed(() => this.event());
  }

  private event(): void {
    this.shown.push(Date.now());
    if (this.shown.length > 2) this.shown.shift();
    const n = this.next;
    this.next = undefined;
    n?.resolve();
  }

  /** Resolves at the next flashblock or seal. */
  nextEvent(): Promise<void> {
    if (!this.next) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  /**
   * How long a receipt request for a pooled transaction may wait for it: two of the intervals
   * the builder is showing flashblocks at (a transaction that arrives during one build goes into
   * the next), at most MAX_RECEIPT_HOLD_MS; 0 when nothing was shown lately (no mining, or
   * `blockTime: 0`, where a transaction is sealed at once or never).
   */
  receiptHoldMs(now = Date.now()): number {
    if (this.shown.length < 2) return 0;
    const interval = this.shown[1] - this.shown[0];
    if (interval <= 0 || now - this.shown[1] > 2 * interval) return 0;
    return Math.min(2 * interval + 20, MAX_RECEIPT_HOLD_MS);
  }

  /** The transaction once pre-confirmed or sealed, or undefined at the deadline (ms from now). */
  async waitFor(c: RpcContext, hash: Uint8Array, ms: number): Promise<TxFound | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      // Taken before the look: an event during the look still wakes this waiter.
      const next = this.nextEvent();
      const found = await findTx(c, hash);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        next.then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), left);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) return findTx(c, hash);
    }
  }
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
