/**
 * The transaction pool: geth's legacy pool rules over in-memory structures.
 *
 *   add(raw) --decode--> validate (geth's order) --await state--> insert
 *                                                                  |
 *        per account:  nonce (state) | pending[] contiguous | queued (nonce gaps)
 *        pool-wide:    byHash, two price heaps (pending, queued; cheapest on top, for eviction)
 *                                                                  |
 *   builder <-- best(baseFee): heads of every sender, by effective tip, nonce order within a sender
 *               (never a blob transaction: the builder makes OP-style blocks, without blobs)
 *   builder --> onIncluded(txs) / onRejected(hash): leave the pool, re-check the senders
 *
 * All mutation happens synchronously after the last await of an operation, so concurrent
 * add() calls interleave only at their state reads.
 *
 * One file (over 400 lines): every operation mutates the same per-account lists, hash index and
 * price heaps, whose invariants hold only together (the rules: validation.ts, replacement.ts; the
 * pooled transaction: pooledTransaction.ts).
 */
import { ecrecover } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type BlobSupport, blobSupportOf } from './blobs.js';
import { bytesToHex } from '../primitives/hex.js';
import {
  type DecodedTransaction,
  decodeRawTransaction,
  type RecoveryCrypto,
  startRecovery,
} from './decode.js';
import { poolError } from './errors.js';
import { type HeapItem, IndexedHeap } from './heap.js';
import { PooledTransaction } from './pooledTransaction.js';
import { comparePrice, effectiveTip, isReplacementPriced } from './replacement.js';
import type { Hex, PoolStateReader, PoolTransaction, TxPool, TxPoolConfig, TxPoolStatus } from './types.js';
import {
  TX_SLOT_SIZE,
  transactionCost,
  validateStateless,
  validateSubmission,
  validateWithState,
} from './validation.js';

/** geth's defaults (legacypool.DefaultConfig, --rpc.txfeecap). */
export const TX_POOL_DEFAULTS = {
  priceLimit: 1n,
  priceBump: 10n,
  txFeeCap: 10n ** 18n,
  accountSlots: 16,
  globalSlots: 5120,
  accountQueue: 64,
  globalQueue: 1024,
  allowUnprotected: false,
  lifetimeMs: 3 * 60 * 60 * 1000,
} as const;

interface Entry extends HeapItem {
  ptx: PoolTransaction;
  /** gasLimit * maxFeePerGas + value. */
  cost: bigint;
  /** Capacity used, in 32 KiB slots (geth's numSlots). */
  slots: number;
  account: Account;
  pending: boolean;
}

interface Account {
  address: Hex;
  /** The next nonce the state expects; pending[i] has nonce `nonce + i`. */
  nonce: bigint;
  pending: Entry[];
  queued: Map<bigint, Entry>;
  /** Sum of the pending entries' cost (geth's ExistingExpenditure). */
  pendingCost: bigint;
}

interface Settings {
  priceLimit: bigint;
  priceBump: bigint;
  txFeeCap: bigint;
  accountSlots: number;
  globalSlots: number;
  accountQueue: number;
  globalQueue: number;
  allowUnprotected: boolean;
}

/** Creates a pool. Consumer: the node's composition root. */
export function createTxPool(config: TxPoolConfig): TxPool {
  return new LegacyPool(config);
}

/**
 * geth's address reservation across its legacy and blob pools: a sender's pooled transactions are
 * either all blob transactions or none (else `address already reserved`), so that a blob
 * transaction never blocks the sender's others behind it, nor the reverse.
 */
function checkReservation(account: Account, blob: boolean): void {
  const held = account.pending[0] ?? account.queued.values().next().value;
  if (held !== undefined && (held.ptx.maxFeePerBlobGas !== undefined) !== blob) {
    throw poolError('alreadyReserved');
  }
}

/** What `prepare` did ahead of `add` for one submission's bytes. */
interface Prepared {
  decoded: DecodedTransaction;
  hash: Hex;
  recovery: Promise<Uint8Array> | undefined;
}

class LegacyPool implements TxPool {
  private readonly settings: Settings;
  private readonly state: PoolStateReader;
  private readonly now: () => number;
  private readonly crypto: RecoveryCrypto;
  private readonly chainId: bigint;
  private readonly floorDataGas: boolean;
  private readonly blobs: BlobSupport;
  private readonly maxSlots: number;

  private readonly byHash = new Map<Hex, Entry>();
  private readonly accounts = new Map<Hex, Account>();
  /** Eviction order: the cheapest (then the highest nonce, then the newest) on top. */
  private readonly pendingHeap: IndexedHeap<Entry>;
  private readonly queuedHeap: IndexedHeap<Entry>;
  /** Queued entries in the order they were queued (for the lifetime). */
  private readonly queuedByAge = new Set<Entry>();
  private readonly lifetimeMs: number;
  private heapBaseFee: bigint;
  private pendingCount = 0;
  private queuedCount = 0;
  private slotsUsed = 0;
  private readonly listeners = new Set<(tx: PoolTransaction) => void>();
  /** Submissions prepared ahead of their add, by the bytes object add will be given. */
  private readonly prepared = new WeakMap<Uint8Array, Prepared>();

  constructor(private readonly config: TxPoolConfig) {
    this.settings = {
      priceLimit: config.priceLimit ?? TX_POOL_DEFAULTS.priceLimit,
      priceBump: config.priceBump ?? TX_POOL_DEFAULTS.priceBump,
      txFeeCap: config.txFeeCap ?? TX_POOL_DEFAULTS.txFeeCap,
      accountSlots: config.accountSlots ?? TX_POOL_DEFAULTS.accountSlots,
      globalSlots: config.globalSlots ?? TX_POOL_DEFAULTS.globalSlots,
      accountQueue: config.accountQueue ?? TX_POOL_DEFAULTS.accountQueue,
      globalQueue: config.globalQueue ?? TX_POOL_DEFAULTS.globalQueue,
      allowUnprotected: config.allowUnprotected ?? TX_POOL_DEFAULTS.allowUnprotected,
    };
    this.maxSlots = this.settings.globalSlots + this.settings.globalQueue;
    this.lifetimeMs = config.lifetimeMs ?? TX_POOL_DEFAULTS.lifetimeMs;
    this.state = config.state;
    this.now = config.now ?? Date.now;
    const custom = config.common.customCrypto ?? {};
    this.crypto = {
      keccak256: custom.keccak256 ?? keccak_256,
      ecrecover: custom.ecrecover ?? ecrecover,
      recovery: config.recovery,
      impersonated: config.impersonated,
    };
    this.chainId = config.common.chainId();
    this.floorDataGas = config.common.isActivatedEIP(7623);
    this.blobs = blobSupportOf(config.common);
    this.heapBaseFee = config.baseFee();
    const cheaper = (a: Entry, b: Entry): boolean => this.evictsBefore(a, b);
    this.pendingHeap = new IndexedHeap(cheaper);
    this.queuedHeap = new IndexedHeap(cheaper);
  }

  prepare(raw: Uint8Array): void {
    if (this.prepared.has(raw)) return;
    let decoded: DecodedTransaction;
    try {
      decoded = decodeRawTransaction(raw, this.blobs);
    } catch {
      return; // add decodes it again and refuses it with the same error
    }
    const hash = bytesToHex(this.crypto.keccak256(decoded.signed));
    // No recovery for one that add refuses before it needs the sender (known, over the fee cap,
    // unprotected): a hostile batch of them costs the worker nothing.
    let refusedEarly = this.byHash.has(hash);
    try {
      validateSubmission(decoded, this.settings.txFeeCap, this.settings.allowUnprotected);
    } catch {
      refusedEarly = true;
    }
    const recovery = refusedEarly ? undefined : startRecovery(decoded, this.chainId, this.crypto);
    this.prepared.set(raw, { decoded, hash, recovery });
  }

  async add(raw: Uint8Array): Promise<PoolTransaction> {
    const prepared = this.prepared.get(raw);
    if (prepared !== undefined) this.prepared.delete(raw);
    const decoded = prepared?.decoded ?? decodeRawTransaction(raw, this.blobs);
    validateSubmission(decoded, this.settings.txFeeCap, this.settings.allowUnprotected);
    const hash = prepared?.hash ?? bytesToHex(this.crypto.keccak256(decoded.signed));
    if (this.byHash.has(hash)) throw poolError('alreadyKnown');
    const sender = await validateStateless(
      decoded,
      {
        chainId: this.chainId,
        crypto: this.crypto,
        floorDataGas: this.floorDataGas,
        blockGasLimit: this.config.blockGasLimit(),
        baseFee: this.config.baseFee(),
        minTip: this.settings.priceLimit,
        blobs: this.blobs.accepted ? this.blobs.rules : undefined,
        blobBaseFee: decoded.blob !== undefined ? this.config.blobBaseFee?.() : undefined,
      },
      prepared?.recovery,
    );
    const { nonce: stateNonce, balance } = await this.readAccount(sender);

    // Synchronous from here: no other operation interleaves.
    if (this.byHash.has(hash)) throw poolError('alreadyKnown');
    this.syncBaseFee();
    this.expireQueued();
    const existing = this.accounts.get(sender);
    if (existing) this.advanceNonce(existing, stateNonce);
    const account = this.accounts.get(sender);
    const cost = transactionCost(decoded);
    const replacedPending = account ? account.pending[Number(decoded.nonce - account.nonce)] : undefined;
    validateWithState(decoded, cost, {
      nextNonce: account ? account.nonce : stateNonce,
      balance,
      pendingCost: account?.pendingCost ?? 0n,
      replacedCost: replacedPending?.cost,
    });
    if (account !== undefined) checkReservation(account, decoded.blob !== undefined);

    const ptx = new PooledTransaction(hash, decoded, sender, this.now(), this.config.common);
    const entry: Entry = {
      ptx,
      cost,
      slots: Math.ceil(raw.length / TX_SLOT_SIZE) || 1,
      account: account ?? this.newAccount(sender, stateNonce),
      pending: false,
      heapIndex: -1,
    };
    this.insert(entry);
    for (const listener of this.listeners) {
      try {
        listener(ptx);
      } catch {
        // A subscriber's failure must not refuse a transaction that is already pooled.
      }
    }
    return ptx;
  }

  get(hash: Hex): PoolTransaction | undefined {
    return this.byHash.get(hash.toLowerCase() as Hex)?.ptx;
  }

  *best(baseFee: bigint, from?: (sender: Hex) => bigint | undefined): Iterable<PoolTransaction> {
    interface Head {
      account: Account;
      nonce: bigint;
      tip: bigint;
      receivedAt: number;
      heapIndex: number;
    }
    const heads = new IndexedHeap<Head>(
      (a, b) => a.tip > b.tip || (a.tip === b.tip && a.receivedAt < b.receivedAt),
    );
    const pushHead = (account: Account, nonce: bigint): void => {
      const entry = account.pending[Number(nonce - account.nonce)];
      if (entry === undefined || entry.ptx.nonce !== nonce || entry.ptx.maxFeePerGas < baseFee) return;
      // Never a blob transaction: the builder seals blocks without blobs (no sidecars, blob gas
      // 0), so it could not include one. They stay pooled (eth_getTransactionByHash, txpool_*);
      // a sender's transactions are all blob or all not (checkReservation), so this skips it.
      if (entry.ptx.maxFeePerBlobGas !== undefined) return;
      heads.push({
        account,
        nonce,
        tip: effectiveTip(entry.ptx, baseFee),
        receivedAt: entry.ptx.receivedAt,
        heapIndex: -1,
      });
    };
    for (const account of this.accounts.values()) {
      if (account.pending.length === 0) continue;
      const wanted = from?.(account.address);
      pushHead(account, wanted !== undefined && wanted > account.nonce ? wanted : account.nonce);
    }
    for (let head = heads.pop(); head !== undefined; head = heads.pop()) {
      // Read live: the builder may report inclusions or rejections while it iterates.
      const entry = head.account.pending[Number(head.nonce - head.account.nonce)];
      if (entry === undefined || entry.ptx.nonce !== head.nonce || entry.ptx.maxFeePerGas < baseFee) continue;
      yield entry.ptx;
      pushHead(head.account, head.nonce + 1n);
    }
  }

  async onIncluded(txs: readonly PoolTransaction[]): Promise<void> {
    this.syncBaseFee();
    const senders = new Set<Hex>();
    for (const ptx of txs) {
      const account = this.accounts.get(ptx.sender);
      if (account === undefined) continue;
      // Its nonce is used: it and every lower nonce of the sender are gone.
      this.advanceNonce(account, ptx.nonce + 1n);
      if (this.accounts.has(ptx.sender)) senders.add(ptx.sender);
    }
    await Promise.all(
      [...senders].map(async (sender) => {
        const { nonce, balance } = await this.readAccount(sender);
        this.syncBaseFee();
        this.revalidate(sender, nonce, balance);
      }),
    );
  }

  onRejected(hash: Hex, _reason: string): void {
    const entry = this.byHash.get(hash.toLowerCase() as Hex);
    if (entry === undefined) return;
    this.syncBaseFee();
    this.removeEntry(entry);
  }

  async pendingNonce(address: Hex): Promise<bigint> {
    const addr = address.toLowerCase() as Hex;
    const stateNonce = await this.state.getNonce(addr);
    const account = this.accounts.get(addr);
    if (account === undefined) return stateNonce;
    const poolNonce = account.nonce + BigInt(account.pending.length);
    return poolNonce > stateNonce ? poolNonce : stateNonce;
  }

  status(): TxPoolStatus {
    return { pending: this.pendingCount, queued: this.queuedCount };
  }

  content(): {
    pending: Map<Hex, Map<bigint, PoolTransaction>>;
    queued: Map<Hex, Map<bigint, PoolTransaction>>;
  } {
    const pending = new Map<Hex, Map<bigint, PoolTransaction>>();
    const queued = new Map<Hex, Map<bigint, PoolTransaction>>();
    for (const [address, account] of this.accounts) {
      if (account.pending.length > 0) {
        pending.set(address, new Map(account.pending.map((e) => [e.ptx.nonce, e.ptx])));
      }
      if (account.queued.size > 0) {
        const sorted = [...account.queued.values()].sort((a, b) => (a.ptx.nonce < b.ptx.nonce ? -1 : 1));
        queued.set(address, new Map(sorted.map((e) => [e.ptx.nonce, e.ptx])));
      }
    }
    return { pending, queued };
  }

  onAdded(listener: (tx: PoolTransaction) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private async readAccount(address: Hex): Promise<{ nonce: bigint; balance: bigint }> {
    if (this.state.getAccount) return this.state.getAccount(address);
    const [nonce, balance] = await Promise.all([
      this.state.getNonce(address),
      this.state.getBalance(address),
    ]);
    return { nonce, balance };
  }

  // --- insertion ---------------------------------------------------------------------------

  private newAccount(address: Hex, nonce: bigint): Account {
    return { address, nonce, pending: [], queued: new Map(), pendingCost: 0n };
  }

  private insert(entry: Entry): void {
    const { account, ptx } = entry;
    const s = this.settings;
    const index = ptx.nonce - account.nonce;
    const old =
      index < BigInt(account.pending.length) ? account.pending[Number(index)] : account.queued.get(ptx.nonce);
    if (old !== undefined) {
      if (!isReplacementPriced(old.ptx, ptx, s.priceBump)) throw poolError('replaceUnderpriced');
      this.replaceEntry(old, entry);
      return;
    }
    const pooled = account.pending.length + account.queued.size;
    const gapped = this.isGapped(account, ptx.nonce);
    if (ptx.nonce !== account.nonce + BigInt(account.pending.length)) {
      if (account.queued.size >= s.accountQueue) throw poolError('accountLimit', `pooled ${pooled} txs`);
      if (this.queuedCount >= s.globalQueue) this.makeRoomInQueue(entry);
    } else if (this.pendingCount >= s.globalSlots && account.pending.length >= s.accountSlots) {
      throw poolError('accountLimit', `pooled ${pooled} txs`);
    }
    if (this.slotsUsed + entry.slots > this.maxSlots) this.makeRoom(entry, gapped);

    // Eviction may have removed the sender's own transactions (and its account from the map).
    if (!this.accounts.has(account.address)) this.accounts.set(account.address, account);
    this.byHash.set(ptx.hash, entry);
    this.slotsUsed += entry.slots;
    if (ptx.nonce === account.nonce + BigInt(account.pending.length)) {
      this.addPending(entry);
      this.promote(account);
    } else {
      this.addQueued(entry);
    }
  }

  /** geth's isGapped: the nonce is neither next nor reachable through the queued ones. */
  private isGapped(account: Account, nonce: bigint): boolean {
    let next = account.nonce + BigInt(account.pending.length);
    if (nonce <= next) return false;
    if (nonce - next > BigInt(account.queued.size)) return true;
    for (; next < nonce; next++) if (!account.queued.has(next)) return true;
    return false;
  }

  private replaceEntry(old: Entry, entry: Entry): void {
    const { account } = old;
    entry.account = account;
    this.byHash.delete(old.ptx.hash);
    this.byHash.set(entry.ptx.hash, entry);
    this.slotsUsed += entry.slots - old.slots;
    if (old.pending) {
      this.pendingHeap.remove(old);
      account.pending[Number(old.ptx.nonce - account.nonce)] = entry;
      account.pendingCost += entry.cost - old.cost;
      entry.pending = true;
      this.pendingHeap.push(entry);
    } else {
      this.queuedHeap.remove(old);
      this.queuedByAge.delete(old);
      account.queued.set(entry.ptx.nonce, entry);
      entry.pending = false;
      this.queuedHeap.push(entry);
      this.queuedByAge.add(entry);
    }
  }

  /** The pool is full: evict strictly cheaper transactions to make room, or refuse. */
  private makeRoom(entry: Entry, gapped: boolean): void {
    const cheapest = this.peekCheapest();
    if (cheapest === undefined || comparePrice(cheapest.ptx, entry.ptx, this.heapBaseFee) >= 0) {
      throw poolError('underpriced');
    }
    const victims: Entry[] = [];
    // The sender's own lower nonces are never evicted for it: that would gap the new transaction.
    const spared: Entry[] = [];
    let free = this.maxSlots - this.slotsUsed;
    const putBack = (entries: Entry[]): void => {
      for (const e of entries) (e.pending ? this.pendingHeap : this.queuedHeap).push(e);
    };
    while (free < entry.slots) {
      const victim = this.popCheapest();
      if (victim === undefined) break;
      if (victim.account === entry.account && victim.ptx.nonce < entry.ptx.nonce) {
        spared.push(victim);
        continue;
      }
      victims.push(victim);
      if (comparePrice(victim.ptx, entry.ptx, this.heapBaseFee) >= 0) break;
      free += victim.slots;
    }
    putBack(spared);
    if (free < entry.slots) {
      putBack(victims);
      throw poolError('poolFull');
    }
    if (gapped && victims.some((v) => v.pending)) {
      putBack(victims);
      throw poolError('futureReplacePending');
    }
    for (const victim of victims) this.removeEntry(victim);
  }

  /** The queue is at globalQueue: evict the cheapest queued transaction if it pays less. */
  private makeRoomInQueue(entry: Entry): void {
    const cheapest = this.queuedHeap.peek();
    if (cheapest === undefined || comparePrice(cheapest.ptx, entry.ptx, this.heapBaseFee) >= 0) {
      throw poolError('poolFull');
    }
    this.removeEntry(cheapest);
  }

  private peekCheapest(): Entry | undefined {
    const p = this.pendingHeap.peek();
    const q = this.queuedHeap.peek();
    if (p === undefined) return q;
    if (q === undefined) return p;
    return this.evictsBefore(q, p) ? q : p;
  }

  private popCheapest(): Entry | undefined {
    const cheapest = this.peekCheapest();
    if (cheapest !== undefined) (cheapest.pending ? this.pendingHeap : this.queuedHeap).remove(cheapest);
    return cheapest;
  }

  private evictsBefore(a: Entry, b: Entry): boolean {
    const c = comparePrice(a.ptx, b.ptx, this.heapBaseFee);
    if (c !== 0) return c < 0;
    if (a.ptx.nonce !== b.ptx.nonce) return a.ptx.nonce > b.ptx.nonce;
    return a.ptx.receivedAt > b.ptx.receivedAt;
  }

  /** The eviction heaps order by effective tip at a base fee; re-heap when it moved. */
  private syncBaseFee(): void {
    const baseFee = this.config.baseFee();
    if (baseFee === this.heapBaseFee) return;
    this.heapBaseFee = baseFee;
    this.pendingHeap.rebuild();
    this.queuedHeap.rebuild();
  }

  // --- account bookkeeping -----------------------------------------------------------------

  private addPending(entry: Entry): void {
    const { account } = entry;
    entry.pending = true;
    account.pending.push(entry);
    account.pendingCost += entry.cost;
    this.pendingCount++;
    this.pendingHeap.push(entry);
  }

  private addQueued(entry: Entry): void {
    entry.pending = false;
    entry.account.queued.set(entry.ptx.nonce, entry);
    this.queuedCount++;
    this.queuedHeap.push(entry);
    this.queuedByAge.add(entry);
  }

  /** Takes a queued entry out of the queue structures (not out of byHash). */
  private unqueue(entry: Entry): void {
    entry.account.queued.delete(entry.ptx.nonce);
    this.queuedCount--;
    this.queuedHeap.remove(entry);
    this.queuedByAge.delete(entry);
  }

  /** geth's --txpool.lifetime: queued transactions older than `lifetimeMs` leave. */
  private expireQueued(): void {
    if (this.lifetimeMs <= 0 || this.queuedByAge.size === 0) return;
    const deadline = this.now() - this.lifetimeMs;
    for (const entry of this.queuedByAge) {
      if (entry.ptx.receivedAt >= deadline) break;
      this.removeEntry(entry);
    }
  }

  /** Moves queued transactions that became contiguous into pending, in nonce order. */
  private promote(account: Account): void {
    let next = account.nonce + BigInt(account.pending.length);
    for (let entry = account.queued.get(next); entry !== undefined; entry = account.queued.get(next)) {
      this.unqueue(entry);
      this.addPending(entry);
      next++;
    }
  }

  /** The state's nonce moved to `nonce`: drop every lower nonce, then promote. */
  private advanceNonce(account: Account, nonce: bigint): void {
    if (nonce <= account.nonce) return;
    const gap = nonce - account.nonce;
    const drop = gap < BigInt(account.pending.length) ? Number(gap) : account.pending.length;
    for (const entry of account.pending.splice(0, drop)) {
      this.forget(entry);
      this.pendingCount--;
      account.pendingCost -= entry.cost;
      this.pendingHeap.remove(entry);
    }
    if (account.queued.size > 0) {
      for (const [n, entry] of account.queued) {
        if (n >= nonce) continue;
        this.forget(entry);
        this.unqueue(entry);
      }
    }
    account.nonce = nonce;
    this.promote(account);
    this.dropIfEmpty(account);
  }

  /** Removes one transaction; the sender's later pending ones become queued (a nonce gap). */
  private removeEntry(entry: Entry): void {
    const { account } = entry;
    if (this.byHash.get(entry.ptx.hash) !== entry) return;
    this.forget(entry);
    if (entry.pending) {
      const tail = account.pending.splice(Number(entry.ptx.nonce - account.nonce));
      this.pendingCount--;
      account.pendingCost -= entry.cost;
      this.pendingHeap.remove(entry);
      for (let i = 1; i < tail.length; i++) {
        const demoted = tail[i];
        this.pendingCount--;
        account.pendingCost -= demoted.cost;
        this.pendingHeap.remove(demoted);
        this.addQueued(demoted);
      }
    } else {
      this.unqueue(entry);
    }
    this.dropIfEmpty(account);
  }

  /** After inclusion: re-check the sender against fresh state (nonce, balance, block gas limit). */
  private revalidate(sender: Hex, nonce: bigint, balance: bigint): void {
    const account = this.accounts.get(sender);
    if (account === undefined) return;
    this.advanceNonce(account, nonce);
    const gasLimit = this.config.blockGasLimit();
    for (const entry of [...account.pending, ...account.queued.values()]) {
      if (entry.cost > balance || entry.ptx.gasLimit > gasLimit) this.removeEntry(entry);
    }
  }

  private forget(entry: Entry): void {
    this.byHash.delete(entry.ptx.hash);
    this.slotsUsed -= entry.slots;
  }

  private dropIfEmpty(account: Account): void {
    if (
      account.pending.length === 0 &&
      account.queued.size === 0 &&
      this.accounts.get(account.address) === account
    ) {
      this.accounts.delete(account.address);
    }
  }
}
