/**
 * The latest sealed state, read from the flat LevelDB maps (one get per account or slot, no trie
 * walk) with an in-memory cache that the seal path keeps current (`apply`).
 */
import { Account, createAccountFromRLP } from '@ethereumjs/util';
import { bytesToHex, bytesToHexPair } from '../primitives/hex.js';
import type { ChainStore } from '../storage/chainStore.js';
import { keys } from '../storage/keys.js';
import type { StateReader } from './stateReader.js';

const EMPTY = new Uint8Array(0);
/**
 * Entries kept in memory per map. A complete map that outgrows it stops being complete (misses
 * go to LevelDB again): memory stays bounded however many accounts the chain creates.
 */
const CACHE_LIMIT = 250_000;
/** Preload at most this many flat entries; beyond it, misses go to LevelDB. */
const PRELOAD_LIMIT = CACHE_LIMIT;

export function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

export class FlatStateReader implements StateReader {
  private readonly accounts = new Map<string, Account | null>();
  private readonly slots = new Map<string, Uint8Array>();
  private readonly codes = new Map<string, Uint8Array>();
  /** Bumped by every seal: a database read that started before it must not fill the cache. */
  private version = 0;
  /**
   * True when the cache holds every account (or slot) of the database, so a miss means
   * "absent" without a LevelDB read (a missing-key get costs ~0.3 ms here: the cost of every
   * transfer to a fresh address).
   */
  private completeAccounts = false;
  private completeSlots = false;

  constructor(private readonly store: ChainStore) {}

  /** Loads the latest flat state into memory when it is small enough (start-up). */
  async preload(): Promise<void> {
    const accounts = await this.store.scan(keys.account(new Uint8Array(0)), PRELOAD_LIMIT + 1);
    if (accounts.length <= PRELOAD_LIMIT) {
      for (const [k, v] of accounts) this.accounts.set(bytesToHex(k.subarray(1)), createAccountFromRLP(v));
      this.completeAccounts = true;
    }
    const slots = await this.store.scan(keys.storagePrefix(new Uint8Array(0)), PRELOAD_LIMIT + 1);
    if (slots.length <= PRELOAD_LIMIT) {
      for (const [k, v] of slots) this.slots.set(bytesToHexPair(k.subarray(1, 21), k.subarray(21)), v);
      this.completeSlots = true;
    }
  }

  async readAccount(address: Uint8Array): Promise<Account | undefined> {
    const k = bytesToHex(address);
    let a = this.accounts.get(k);
    if (a === undefined && this.completeAccounts) return undefined;
    if (a === undefined) {
      const v = this.version;
      const raw = await this.store.get(keys.account(address));
      if (v !== this.version) return this.readAccount(address);
      a = raw ? createAccountFromRLP(raw) : null;
      this.remember(this.accounts, k, a);
    }
    // Shared with the cache: StateReader callers never mutate (JournaledState copies for the EVM).
    return a ?? undefined;
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const k = bytesToHexPair(address, slot);
    let v = this.slots.get(k);
    if (v === undefined && this.completeSlots) return EMPTY;
    if (v === undefined) {
      const ver = this.version;
      v = (await this.store.get(keys.storage(address, slot))) ?? EMPTY;
      if (ver !== this.version) return this.readStorage(address, slot);
      this.remember(this.slots, k, v);
    }
    return v;
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    const k = bytesToHex(codeHash);
    let c = this.codes.get(k);
    if (c === undefined) {
      c = (await this.store.get(keys.code(codeHash))) ?? EMPTY;
      this.remember(this.codes, k, c);
    }
    return c;
  }

  /** Keeps the cache equal to the database after a seal wrote a state diff. */
  applySealed(diff: {
    accounts: Iterable<{ address: Uint8Array; account: Account | null }>;
    clearedStorage: Uint8Array[];
    storage: Iterable<{ address: Uint8Array; slot: Uint8Array; value: Uint8Array }>;
  }): void {
    this.version++;
    for (const addr of diff.clearedStorage) {
      const prefix = bytesToHex(addr);
      for (const k of this.slots.keys()) if (k.startsWith(prefix)) this.slots.delete(k);
    }
    for (const a of diff.accounts) {
      const k = bytesToHex(a.address);
      if (this.completeAccounts && !a.account) this.accounts.delete(k);
      else this.remember(this.accounts, k, a.account ? copyAccount(a.account) : null);
    }
    for (const s of diff.storage) {
      const k = bytesToHexPair(s.address, s.slot);
      if (this.completeSlots && s.value.length === 0) this.slots.delete(k);
      else this.remember(this.slots, k, s.value);
    }
  }

  private remember<V>(m: Map<string, V>, k: string, v: V): void {
    if (m.size >= CACHE_LIMIT && !m.has(k)) {
      m.clear();
      if (m === (this.accounts as unknown)) this.completeAccounts = false;
      if (m === (this.slots as unknown)) this.completeSlots = false;
    }
    m.set(k, v);
  }
}
