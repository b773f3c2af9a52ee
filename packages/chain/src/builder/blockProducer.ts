/**
 * Block production: keeps one PendingBlock open over the head, feeds it from the pool and seals
 * it every block time (`blockTime` 0: one block per transaction; `mining` false: never).
 * All builder work runs on one serial queue, so a seal never interleaves with an insert.
 *
 *   pool.onAdded ─┐
 *   fill timer ───┼─> queue: fill()  ─> pending.add(tx) ─> pool.onIncluded / onRejected
 *   seal timer ───┘          seal()  ─> pending.seal() ─> commitBlock ─> listeners (newHeads, logs)
 */
import type { Block } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import { hexToBytes } from '../primitives/hex.js';
import type { PoolStateReader, PoolTransaction, TxPool } from '../txpool/types.js';
import { type IncludedTx, PendingBlock } from './pendingBlock.js';

export interface ProducerOptions {
  /** Seconds between seals; 0 seals one block per transaction. */
  blockTime: number;
  /** Milliseconds between pool drains into the pending block. */
  flashblockInterval: number;
  mining: boolean;
  extraData?: Uint8Array;
  now?: () => number;
  onError?: (e: unknown) => void;
}

export type SealListener = (block: Block, txs: IncludedTx[]) => void;

export class BlockProducer {
  pending: PendingBlock;
  private queue: Promise<unknown> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private readonly listeners = new Set<SealListener>();
  private stopped = false;
  private pool?: TxPool;
  /** Pool transactions executed into the pending block, by hash. */
  private readonly included = new Map<string, PoolTransaction>();

  constructor(
    private readonly ctx: ChainContext,
    private readonly opts: ProducerOptions,
  ) {
    this.pending = this.open(ctx.blocks.head);
  }

  /** What the pool validates against: the state after the pending block's transactions. */
  poolState(): PoolStateReader {
    return {
      getNonce: async (a) => (await this.pending.state.readAccount(hexToBytes(a)))?.nonce ?? 0n,
      getBalance: async (a) => (await this.pending.state.readAccount(hexToBytes(a)))?.balance ?? 0n,
    };
  }

  start(pool: TxPool): void {
    this.pool = pool;
    if (!this.opts.mining) return;
    if (this.opts.blockTime === 0) {
      pool.onAdded(() => this.enqueue(() => this.sealEach()));
      return;
    }
    pool.onAdded(() => {
      // A transaction is considered at the next fill tick (issue 5's flashblock interval).
    });
    this.timers.push(setInterval(() => this.enqueue(() => this.fill()), this.opts.flashblockInterval));
    this.timers.push(
      setInterval(
        () =>
          this.enqueue(async () => {
            await this.fill();
            await this.sealPending();
          }),
        this.opts.blockTime * 1000,
      ),
    );
  }

  onSealed(l: SealListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Seals the pending block now (tests, evm_mine-like use). */
  mine(): Promise<Block> {
    return this.enqueue(async () => {
      await this.fill();
      return this.sealPending();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.queue.catch(() => {});
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => (this.stopped ? (undefined as T) : fn()));
    this.queue = run.catch((e) => this.opts.onError?.(e));
    return run;
  }

  private open(parent: Block): PendingBlock {
    const now = BigInt(Math.floor((this.opts.now?.() ?? Date.now()) / 1000));
    const ts = now > parent.header.timestamp ? now : parent.header.timestamp + 1n;
    return new PendingBlock(this.ctx, parent, ts, this.opts.extraData ?? new Uint8Array(0));
  }

  /** Executes the pool's best transactions into the pending block. */
  private async fill(limit = Number.POSITIVE_INFINITY): Promise<number> {
    const pool = this.pool;
    if (!pool) return 0;
    const candidates: PoolTransaction[] = [];
    for (const t of pool.best(this.pending.baseFee)) {
      if (this.included.has(t.hash)) continue;
      candidates.push(t);
      if (candidates.length >= limit) break;
    }
    const done: PoolTransaction[] = [];
    let sinceYield = 0;
    for (const t of candidates) {
      // Execution on the in-memory state rarely awaits I/O: yield so RPC keeps answering.
      if (++sinceYield === 64) {
        sinceYield = 0;
        await new Promise((r) => setImmediate(r));
      }
      const r = await this.pending.add(t.tx, {
        raw: t.raw,
        sender: hexToBytes(t.sender),
        hash: hexToBytes(t.hash),
      });
      if (r.ok) {
        done.push(t);
        this.included.set(t.hash, t);
      } else if (!r.retry) pool.onRejected(t.hash, r.reason);
      else break;
    }
    if (done.length) await pool.onIncluded(done);
    return done.length;
  }

  private async sealPending(): Promise<Block> {
    const { block, txs } = await this.pending.seal();
    this.included.clear();
    this.pending = this.open(block);
    for (const l of this.listeners) {
      try {
        l(block, txs);
      } catch (e) {
        this.opts.onError?.(e);
      }
    }
    return block;
  }

  /** blockTime 0: every executable transaction gets a block of its own. */
  private async sealEach(): Promise<void> {
    while (!this.stopped && (await this.fill(1)) > 0) await this.sealPending();
  }
}
