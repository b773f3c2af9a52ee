/**
 * The latest sealed state, read from the flat LevelDB maps (one get per account or slot, no trie
 * walk) with an in-memory cache that the seal path keeps current (`apply`).
 */
import { Account } from '@ethereumjs/util';
import { bytesToHex, bytesToHexPair } from '../primitives/hex.js';
import type { ChainStore } from '../storage/chainStore.js';
import { accountFromFlat } from '../storage/flatAccount.js';
import { keys } from '../storage/keys.js';
import { keccak256 } from '../crypto/keccak.js';
import { GenerationalCache } from './generationalCache.js';
import type { StateReader } from './stateReader.js';
import type { StateTrie } from './trieAdapter.js';

const EMPTY = new Uint8Array(0);
/**
 * Accounts (and slots) per cache generation: at most twice this many are kept, whatever the
 * chain's size. At 1,000 transfers/s to fresh addresses the cache is full after about a minute
 * and memory stays flat from then on (~350 bytes an account); misses go to LevelDB, and the
 * builder prefetches the accounts of a batch in one call (`prefetch`).
 */
const CACHE_LIMIT = 32_768;
/** Contract codes per generation (a code is up to 24 KiB, an account ~350 bytes). */
const CODE_CACHE_LIMIT = 1024;
/** Preload at most this many flat entries (one generation); beyond it, misses go to LevelDB. */
const PRELOAD_LIMIT = CACHE_LIMIT;

export function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

export class FlatStateReader implements StateReader {
  private readonly accounts: GenerationalCache<Account | null>;
  private readonly slots: GenerationalCache<Uint8Array>;
  private readonly codes = new GenerationalCache<Uint8Array>(CODE_CACHE_LIMIT);
  /** Bumped by every seal: a database read that started before it must not fill the cache. */
  private version = 0;
  /**
   * True while the cache holds every account (or slot) of the database — a small chain, preloaded
   * and never evicted — so a miss means "absent" without a LevelDB read.
   */
  private preloadedAccounts = false;
  private preloadedSlots = false;

  /**
   * A fork's remote state (state/forkState.ts): what a key never written since the fork reads.
   * Deletions are then stored as empty values (ChainStore.tombstones), so a missing key means
   * "ask below" and an empty one "gone".
   */
  below?: StateReader & { readAccounts?(addresses: Uint8Array[]): Promise<(Account | undefined)[]> };

  /**
   * The account trie at the latest sealed root (the seal's own, its nodes shared with the block
   * being built on it): `prefetch` reads accounts through it (decision 0470). Set only by the
   * last `applySealed`, so it always is the state this cache holds.
   */
  private sealedTrie?: StateTrie;

  constructor(
    private readonly store: ChainStore,
    /** Accounts (and slots) per cache generation; tests make it small to see evictions. */
    private readonly cacheLimit = CACHE_LIMIT,
  ) {
    this.accounts = new GenerationalCache(cacheLimit);
    this.slots = new GenerationalCache(cacheLimit);
  }

  private get completeAccounts(): boolean {
    return this.preloadedAccounts && !this.accounts.evicted && !this.below;
  }
  private get completeSlots(): boolean {
    return this.preloadedSlots && !this.slots.evicted && !this.below;
  }

  /** Loads the latest flat state into memory when it is small enough (start-up). */
  async preload(): Promise<void> {
    const limit = Math.min(PRELOAD_LIMIT, this.cacheLimit);
    const accounts = await this.store.scan(keys.account(new Uint8Array(0)), limit + 1);
    if (accounts.length <= limit) {
      for (const [k, v] of accounts)
        this.accounts.set(bytesToHex(k.subarray(1)), v.length ? accountFromFlat(v) : null);
      this.preloadedAccounts = true;
    }
    const slots = await this.store.scan(keys.storagePrefix(new Uint8Array(0)), limit + 1);
    if (slots.length <= limit) {
      for (const [k, v] of slots) this.slots.set(bytesToHexPair(k.subarray(1, 21), k.subarray(21)), v);
      this.preloadedSlots = true;
    }
  }

  readAccount(address: Uint8Array): Promise<Account | undefined> {
    return this.readAccountKeyed(bytesToHex(address), address);
  }

  async readAccountKeyed(k: string, address: Uint8Array): Promise<Account | undefined> {
    let a = this.accounts.get(k);
    if (a === undefined && this.completeAccounts) return undefined;
    if (a === undefined) {
      const v = this.version;
      const raw = await this.store.get(keys.account(address));
      if (raw === undefined && this.below) {
        const remote = await this.below.readAccount(address);
        if (v !== this.version) return this.readAccountKeyed(k, address);
        a = remote ?? null;
      } else {
        if (v !== this.version) return this.readAccountKeyed(k, address);
        a = raw?.length ? accountFromFlat(raw) : null;
      }
      this.accounts.set(k, a);
    }
    // Shared with the cache: StateReader callers never mutate (JournaledState copies for the EVM).
    return a ?? undefined;
  }

  /**
   * Brings these accounts into the cache in one LevelDB call, so that executing a batch of
   * transactions does not wait on the database once per fresh recipient (~0.3 ms each, serial).
   */
  async prefetch(addresses: Iterable<Uint8Array>): Promise<void> {
    if (this.completeAccounts) return;
    const want = new Map<string, Uint8Array>();
    for (const a of addresses) {
      const k = bytesToHex(a);
      if (!this.accounts.has(k)) want.set(k, a);
    }
    if (!want.size) return;
    const v = this.version;
    const trie = this.sealedTrie;
    if (trie && (await this.prefetchFromTrie(trie, want, v))) return;
    const got = await this.store.getMany([...want.values()].map((a) => keys.account(a)));
    if (v !== this.version) return;
    let i = 0;
    const missing: [string, Uint8Array][] = [];
    for (const [k, address] of want) {
      const raw = got[i++];
      if (raw === undefined && this.below) missing.push([k, address]);
      else this.accounts.set(k, raw?.length ? accountFromFlat(raw) : null);
    }
    if (!missing.length || !this.below?.readAccounts) return;
    // A fork: the accounts never written here, asked from the remote in one batch. A failure is
    // the read's to report (it asks again), not the prefetch's.
    const remote = await this.below.readAccounts(missing.map(([, a]) => a)).catch(() => undefined);
    if (!remote || v !== this.version) return;
    for (let j = 0; j < missing.length; j++) this.accounts.set(missing[j][0], remote[j] ?? null);
  }

  /**
   * `prefetch` through the sealed account trie: a walk to each account's leaf, which the builder
   * makes anyway for the same accounts (its state root needs their paths; the node reads are
   * shared: a node is loaded once, in place), says what the account is, or that there is none,
   * without a flat-state read. At 1,000 transfers/s to fresh addresses that read was one
   * LevelDB key per transfer once the cache had evicted (decision 0470). False: not done
   * (a trie read failed); the flat state is read instead.
   */
  private async prefetchFromTrie(
    trie: StateTrie,
    want: Map<string, Uint8Array>,
    v: number,
  ): Promise<boolean> {
    const hashed: Uint8Array[] = [];
    for (const a of want.values()) hashed.push(keccak256(a));
    const found: (Uint8Array | undefined)[] = [];
    try {
      await trie.warm(hashed);
      // In memory now: each get answers without a read.
      for (const h of hashed) found.push(await trie.get(h));
    } catch {
      return false;
    }
    if (v !== this.version) return true;
    let i = 0;
    for (const k of want.keys()) {
      const raw = found[i++];
      this.accounts.set(k, raw?.length ? accountFromFlat(raw) : null);
    }
    return true;
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const k = bytesToHexPair(address, slot);
    let v = this.slots.get(k);
    if (v === undefined && this.completeSlots) return EMPTY;
    if (v === undefined) {
      const ver = this.version;
      v = await this.store.get(keys.storage(address, slot));
      if (v === undefined && this.below) v = await this.below.readStorage(address, slot);
      v ??= EMPTY;
      if (ver !== this.version) return this.readStorage(address, slot);
      this.slots.set(k, v);
    }
    return v;
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    const k = bytesToHex(codeHash);
    let c = this.codes.get(k);
    if (c === undefined) {
      c = (await this.store.get(keys.code(codeHash))) ?? EMPTY;
      this.codes.set(k, c);
    }
    return c;
  }

  /**
   * Forgets every cached entry and loads again: the latest state was rewritten under it
   * (evm_revert, anvil_reset). Reads that started before see a version change and read again.
   */
  async forget(): Promise<void> {
    this.version++;
    this.sealedTrie = undefined;
    this.accounts.clear();
    this.slots.clear();
    this.codes.clear();
    this.preloadedAccounts = this.preloadedSlots = false;
    await this.preload();
  }

  /** Keeps the cache equal to the database after a seal wrote a state diff. */
  applySealed(
    diff: {
      accounts: Iterable<{ address: Uint8Array; account: Account | null }>;
      clearedStorage: Uint8Array[];
      storage: Iterable<{ address: Uint8Array; slot: Uint8Array; value: Uint8Array }>;
    },
    /** The account trie at the sealed root (a copy is kept; a fork's is not used: see `below`). */
    trie?: StateTrie,
  ): void {
    this.version++;
    // A fork's trie lacks what was never written since the fork: its misses are not "absent".
    this.sealedTrie = this.below ? undefined : trie?.copy();
    for (const addr of diff.clearedStorage) this.slots.deletePrefix(bytesToHex(addr));
    for (const a of diff.accounts) {
      const k = bytesToHex(a.address);
      if (this.completeAccounts && !a.account) this.accounts.delete(k);
      else this.accounts.set(k, a.account ? copyAccount(a.account) : null);
    }
    for (const s of diff.storage) {
      const k = bytesToHexPair(s.address, s.slot);
      if (this.completeSlots && s.value.length === 0) this.slots.delete(k);
      else this.slots.set(k, s.value);
    }
  }
}
