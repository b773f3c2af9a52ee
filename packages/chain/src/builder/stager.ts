/**
 * Executes pool transactions into the flashblock being built before it is due ("staging"):
 * which transactions come next (`candidates`), reading what they touch ahead (`warm`), and
 * executing them (`stage`). Nothing staged is visible until the flashblock publishes it.
 *
 *   pool.best(baseFee, next nonce per sender) ─> candidates (fit the block's gas) ─> warm
 *       (recipients' accounts; trie paths beside) ─> PendingBlock.add ─> staged
 *
 * A staging pass gives way to a flashblock falling due (TickSignal); a flashblock's own staging
 * stops at its staging stop (FlashblockSchedule.stagingStopsAt) and leaves the rest to the next.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { bytesToHex, hexToBytes } from '../primitives/hex.js';
import type { FlatStateReader } from '../state/flatState.js';
import type { PoolTransaction, TxPool } from '../txpool/types.js';
import type { PendingBlock } from './pendingBlock.js';
import type { TickSignal } from './tickSignal.js';

/** A staging pass this close to the next flashblock's timer yields at every transaction. */
const STAGE_NEAR_TIMER_MS = 2;

/**
 * A flashblock's own staging: from `stopAt` on (ms, `now()`) it executes only the transactions
 * the flashblock before left (`forced`), and notes the others it leaves (`left`).
 */
export interface InFlashblock {
  stopAt: number;
  forced: ReadonlySet<string>;
  left: Set<string>;
}

export interface StagerDeps {
  flat: Pick<FlatStateReader, 'prefetch'>;
  pool: () => TxPool | undefined;
  /** The block being built (it changes at each seal). */
  building: () => PendingBlock;
  tick: TickSignal;
  now: () => number;
  stopped: () => boolean;
  onError?: (e: unknown) => void;
}

export class Stager {
  /** Pool transactions executed into the pending block and published, by hash. */
  private readonly included = new Map<string, PoolTransaction>();
  /** Executed into the flashblock being built, not yet published (in execution order). */
  private stagedList: PoolTransaction[] = [];
  private readonly stagedHashes = new Set<string>();
  /**
   * Per sender, the nonce after its last transaction executed into this block (staged or
   * pre-confirmed): candidates() starts each sender there instead of walking those again.
   */
  private readonly nextNonce = new Map<string, bigint>();
  /** Pool transactions whose trie paths this block is reading ahead (`warm`), and those reads. */
  private warmed = new WeakMap<PoolTransaction, Promise<void>>();
  /** The transactions the last flashblock left when it stopped staging: the next one stages them. */
  private leftToNext: ReadonlySet<string> = new Set();
  /** Settles the wait of a flashblock taking arrivals until its staging stop (`nextArrival`). */
  private arrival?: (came: boolean) => void;

  constructor(private readonly d: StagerDeps) {}

  /** The pool took a transaction (BlockProducer, pool.onAdded). */
  arrived(): void {
    this.arrival?.(true);
  }

  /**
   * Settles true when the pool next takes a transaction, false after `ms`: a flashblock that
   * staged what waited stages what comes until its staging stop (flashblockAttempt.ts).
   */
  nextArrival(ms: number): Promise<boolean> {
    this.arrival?.(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), ms);
      const settle = (came: boolean) => {
        clearTimeout(timer);
        if (this.arrival === settle) this.arrival = undefined;
        resolve(came);
      };
      this.arrival = settle;
    });
  }

  /** Executed into the flashblock being built and not yet published. */
  get staged(): readonly PoolTransaction[] {
    return this.stagedList;
  }

  /**
   * A flashblock's own staging state, shown at `stopAt` (infinite: not timed), forced to take
   * what the one before left. Its `left` becomes the next one's forced set (`flashblockStaged`).
   */
  forFlashblock(stopAt: number): InFlashblock {
    return { stopAt, forced: this.leftToNext, left: new Set() };
  }

  flashblockStaged(own: InFlashblock): void {
    this.leftToNext = own.left;
  }

  /** These published transactions are pre-confirmed: no later flashblock of the block takes them. */
  preconfirmed(done: readonly PoolTransaction[]): void {
    for (const t of done) this.included.set(t.hash, t);
  }

  /** The staged transactions were published (or dropped): the next flashblock starts empty. */
  clearStaged(): void {
    this.stagedList = [];
    this.stagedHashes.clear();
  }

  /** The flashblock being built was discarded: only what was pre-confirmed stays executed. */
  discarded(): void {
    this.clearStaged();
    this.nextNonce.clear();
    for (const t of this.included.values())
      if ((this.nextNonce.get(t.sender) ?? 0n) <= t.nonce) this.nextNonce.set(t.sender, t.nonce + 1n);
  }

  /** A block was sealed: the next starts with nothing executed. */
  blockSealed(): void {
    this.warmed = new WeakMap();
    this.included.clear();
    this.nextNonce.clear();
    this.clearStaged();
  }

  /**
   * The pool's best transactions not yet in the block (at most `limit`), in execution order, as
   * far as their gas limits fit in what the block has left (`cut`: one more did not). A pool
   * holding more than a block takes is not read and warmed whole on every pass (with 5,000
   * waiting and a full block, the node never caught up).
   */
  candidates(limit = Number.POSITIVE_INFINITY): { list: PoolTransaction[]; cut: boolean } {
    const list: PoolTransaction[] = [];
    const pool = this.d.pool();
    if (!pool || limit <= 0) return { list, cut: false };
    const b = this.d.building();
    let gasLeft = b.gasLeft;
    for (const t of pool.best(b.baseFee, (sender) => this.nextNonce.get(sender))) {
      if (this.included.has(t.hash) || this.stagedHashes.has(t.hash)) continue;
      // The pool's own fields: reading `t.tx` would build the transaction object (see pooledTransaction.ts).
      if (t.gasLimit > gasLeft) return { list, cut: true };
      gasLeft -= t.gasLimit;
      list.push(t);
      if (list.length >= limit) break;
    }
    return { list, cut: false };
  }

  /**
   * Brings what these transactions touch into memory, all at once: their recipients' accounts
   * (fresh recipients are LevelDB misses) and the state-trie paths of recipients and senders.
   * Execution needs only the accounts (`senders` settles with them: each distinct sender's
   * bytes); the trie's reads go on beside it, ready before the flashblock's root update needs
   * them, which shares any still in flight (`paths` settles when they are in). A staging pass
   * awaits only the accounts. Changes nothing.
   */
  warm(candidates: PoolTransaction[]): {
    senders: Promise<Map<string, Uint8Array>>;
    paths: Promise<unknown>;
  } {
    const recipients: Uint8Array[] = [];
    // Each sender once: a batch holds many transactions of each.
    const senders = new Map<string, Uint8Array>();
    // The trie paths once per block: a transaction is a candidate of its pass's warm-up, of the
    // pass itself and of the flashblocks until one stages it (each path costs a keccak and a walk).
    const paths = new Map<string, Uint8Array>();
    const fresh: PoolTransaction[] = [];
    const reading = new Set<Promise<void>>();
    for (const t of candidates) {
      const to = t.to;
      let sender = senders.get(t.sender);
      if (!sender) {
        sender = hexToBytes(t.sender);
        senders.set(t.sender, sender);
      }
      if (to) recipients.push(to);
      const read = this.warmed.get(t);
      if (read) {
        reading.add(read);
        continue;
      }
      fresh.push(t);
      if (to) paths.set(bytesToHex(to), to);
      paths.set(t.sender, sender);
    }
    if (paths.size) {
      const read = this.d
        .building()
        .warmRoot([...paths.values()])
        .catch((e) => {
          // Only a warm-up: the root update reads whatever is still missing itself.
          if (!this.d.stopped()) this.d.onError?.(e);
        });
      for (const t of fresh) this.warmed.set(t, read);
      reading.add(read);
    }
    const accounts = recipients.length ? this.d.flat.prefetch(recipients) : Promise.resolve();
    return { senders: accounts.then(() => senders), paths: Promise.all(reading) };
  }

  /**
   * Settles true once the trie paths of every staged transaction are read (`warm`), false if a
   * flashblock falls due first.
   */
  pathsReadBeforeTick(): Promise<boolean> {
    const reads = new Set<Promise<void>>();
    for (const t of this.stagedList) {
      const read = this.warmed.get(t);
      if (read) reads.add(read);
    }
    return Promise.race([Promise.all(reads).then(() => true), this.d.tick.whenDue().then(() => false)]);
  }

  /**
   * Executes the pool's best transactions not yet in the block (at most `limit`) into the
   * flashblock being built. Returns how many were staged.
   */
  async stage(limit = Number.POSITIVE_INFINITY, inFlashblock?: InFlashblock): Promise<number> {
    let total = 0;
    for (;;) {
      const { staged, cut } = await this.stageBatch(limit - total, inFlashblock);
      total += staged;
      // Transactions use less gas than their limits: a flashblock takes what fits after them too.
      if (!inFlashblock || !cut || staged === 0) return total;
    }
  }

  /** One batch of `stage`: the candidates that fit in the block's gas as it is now. */
  private async stageBatch(
    limit: number,
    inFlashblock: InFlashblock | undefined,
  ): Promise<{ staged: number; cut: boolean }> {
    const pool = this.d.pool();
    if (!pool) return { staged: 0, cut: false };
    const { now, tick } = this.d;
    const b = this.d.building();
    const { list: candidates, cut } = this.candidates(limit);
    // Mostly in memory already (the pass's warm-up); what arrived since, or what a seal evicted,
    // is read here. A flashblock falling due meanwhile goes first: it stages these itself.
    const { senders: warmed, paths } = this.warm(candidates);
    // A staging pass gives way to a flashblock falling due. A flashblock stops at its time, and
    // stages only what its state root can take without reading the database (trie reads it
    // would wait for made flashblocks late).
    const interrupted = !inFlashblock
      ? await Promise.race([warmed.then(() => false), tick.whenDue().then(() => true)])
      : !(await settlesBefore(Promise.all([warmed, paths]), inFlashblock.stopAt - now()));
    // A flashblock out of time still waits for what the one before left to it.
    if (interrupted && !(inFlashblock && candidates.some((t) => inFlashblock.forced.has(t.hash)))) {
      warmed.catch(() => {}); // only a warm-up; whoever stages these reads again
      if (inFlashblock) for (const t of candidates) inFlashblock.left.add(t.hash);
      return { staged: 0, cut: false };
    }
    const senders = await warmed;
    let staged = 0;
    let sinceYield = 0;
    for (const t of candidates) {
      // Execution on the in-memory state rarely awaits I/O: a staging pass yields so RPC keeps
      // answering. A flashblock does not: it is due, and each yield lets a burst of RPC work in.
      // Near the next flashblock's timer it yields at every transaction: the timer fires on time.
      if (!inFlashblock && (++sinceYield === 16 || now() >= tick.firesAt - STAGE_NEAR_TIMER_MS)) {
        sinceYield = 0;
        await nextTurn();
        // A flashblock is due: it stages the rest itself, on time.
        if (tick.due) return { staged, cut };
      }
      // A flashblock out of time leaves the rest to the next one.
      if (inFlashblock && !inFlashblock.forced.has(t.hash) && now() >= inFlashblock.stopAt) {
        inFlashblock.left.add(t.hash);
        continue;
      }
      const r = await b.addPooled(t, {
        raw: t.raw,
        sender: senders.get(t.sender)!,
        hash: hexToBytes(t.hash),
      });
      if (r.ok) {
        this.stagedList.push(t);
        this.stagedHashes.add(t.hash);
        this.nextNonce.set(t.sender, t.nonce + 1n);
        staged++;
      } else if (!r.retry) pool.onRejected(t.hash, r.reason);
      else return { staged, cut: false };
    }
    return { staged, cut };
  }
}

/** Whether `p` settles within `ms` (false at once if `ms` has passed). A rejection counts as settled. */
async function settlesBefore(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  const settled = p.then(
    () => true,
    () => true,
  );
  if (!Number.isFinite(ms)) return settled;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
