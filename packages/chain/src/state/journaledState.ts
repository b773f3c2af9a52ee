/**
 * Execution state for @ethereumjs/vm: a flat overlay (accounts, slots, code) over any
 * StateReader, with an undo journal for checkpoint/commit/revert. No trie is touched while
 * transactions run; the seal folds `diff()` into the trie in one batch (state/stateRoot.ts).
 *
 * Overlays stack: a block being built is a JournaledState over the latest flat state, and an
 * eth_call at `pending` runs in a throwaway JournaledState over that one.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address, KECCAK256_NULL } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, bytesToHexPair, equalBytes, hexToBytes } from '../primitives/hex.js';
import { copyAccount } from './flatState.js';
import { readAccountKeyed, type StateReader } from './stateReader.js';

const EMPTY = new Uint8Array(0);

interface SlotOverlay {
  /** All slots below were wiped (contract (re)creation, account deletion). */
  cleared: boolean;
  slots: Map<string, Uint8Array>;
}

/** The changes of an overlay relative to its base. */
export interface StateDiff {
  accounts: Map<string, Account | null>;
  storage: Map<string, SlotOverlay>;
  code: Map<string, Uint8Array>;
}

function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return i === 0 ? v : v.slice(i);
}

export type RootComputer = (diff: StateDiff) => Promise<Uint8Array>;

export class JournaledState implements StateManagerInterface, StateReader {
  private readonly accounts = new Map<string, Account | null>();
  private readonly storage = new Map<string, SlotOverlay>();
  private readonly codes = new Map<string, Uint8Array>();
  /** Undo entries, kept only inside a checkpoint (outside one, nothing can be reverted). */
  private journal: (() => void)[] = [];
  private readonly checkpoints: number[] = [];
  private readonly original = new Map<string, Uint8Array>();
  /** See maskSenderCode. */
  private mask?: { key: string; codeHash: Uint8Array; reads: number };
  /** Accounts whose fields or slots were set since the last `takeChanged()` (reverted ones too). */
  private changed = new Set<string>();

  constructor(
    readonly base: StateReader,
    /** Computes the state root of base + diff; only needed where getStateRoot is called. */
    private readonly rootOf?: RootComputer,
  ) {}

  // ---- StateReader (so overlays can stack) ----

  readAccount(address: Uint8Array): Promise<Account | undefined> {
    return this.readAccountKeyed(bytesToHex(address), address);
  }

  /** Down the stack of overlays in one loop: no promise and no hex encoding per layer. */
  readAccountKeyed(k: string, address: Uint8Array): Promise<Account | undefined> {
    for (let layer: JournaledState = this; ; ) {
      const a = layer.accounts.get(k);
      if (a !== undefined) return Promise.resolve(a ?? undefined);
      const base = layer.base;
      if (!(base instanceof JournaledState)) return readAccountKeyed(base, k, address);
      layer = base;
    }
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const o = this.storage.get(bytesToHex(address));
    if (o) {
      const v = o.slots.get(bytesToHex(slot));
      if (v !== undefined) return v;
      if (o.cleared) return EMPTY;
    }
    return this.base.readStorage(address, slot);
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    return this.codes.get(bytesToHex(codeHash)) ?? this.base.readCode(codeHash);
  }

  // ---- StateManagerInterface ----

  async getAccount(address: Address): Promise<Account | undefined> {
    // The EVM mutates what it gets: always a copy.
    const read = await this.readAccount(address.bytes);
    const a = read && copyAccount(read);
    const m = this.mask;
    if (a && m && m.reads > 0 && m.key === bytesToHex(address.bytes)) {
      m.reads--;
      a.codeHash = KECCAK256_NULL;
    }
    return a;
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.writeAccount(address.bytes, account);
  }

  /** putAccount, synchronously (a copy of `account` is kept). */
  writeAccount(address: Uint8Array, account: Account): void {
    const k = bytesToHex(address);
    const copy = copyAccount(account);
    if (this.mask?.key === k && equalBytes(copy.codeHash, KECCAK256_NULL)) copy.codeHash = this.mask.codeHash;
    this.setAccount(k, copy);
  }

  /**
   * eth_call and eth_simulateV1 may send from a contract (geth skips EIP-3607 there; @ethereumjs
   * cannot): runTx's first read of the sender sees no code, and its write-backs keep the code.
   * Returns the function that ends the mask.
   */
  async maskSenderCode(address: Uint8Array): Promise<() => void> {
    const a = await this.readAccount(address);
    if (!a || equalBytes(a.codeHash, KECCAK256_NULL)) return () => {};
    const code = await this.readCode(a.codeHash);
    // A 7702 delegation may send anyway.
    if (code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) return () => {};
    this.mask = { key: bytesToHex(address), codeHash: a.codeHash, reads: 1 };
    return () => {
      this.mask = undefined;
    };
  }

  async deleteAccount(address: Address): Promise<void> {
    this.removeAccount(address.bytes);
  }

  /** deleteAccount, synchronously: the account and its storage are gone. */
  removeAccount(address: Uint8Array): void {
    const k = bytesToHex(address);
    this.setAccount(k, null);
    this.setSlots(k, { cleared: true, slots: new Map() });
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const a = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) a.nonce = fields.nonce;
    if (fields.balance !== undefined) a.balance = fields.balance;
    if (fields.storageRoot !== undefined) a.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) a.codeHash = fields.codeHash;
    await this.putAccount(address, a);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const hash = keccak256(value);
    const hk = bytesToHex(hash);
    if (!this.codes.has(hk)) {
      this.codes.set(hk, value);
      if (this.checkpoints.length) this.journal.push(() => this.codes.delete(hk));
    }
    await this.modifyAccountFields(address, { codeHash: hash });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const a = await this.readAccount(address.bytes);
    if (!a || equalBytes(a.codeHash, KECCAK256_NULL)) return EMPTY;
    return this.readCode(a.codeHash);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    return this.readStorage(address.bytes, key);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    const k = bytesToHex(address.bytes);
    let o = this.storage.get(k);
    if (!o) {
      o = { cleared: false, slots: new Map() };
      this.setSlots(k, o);
    }
    const sk = bytesToHex(key);
    const prev = o.slots.get(sk);
    const slots = o.slots;
    slots.set(sk, stripZeros(value));
    this.changed.add(k);
    if (this.checkpoints.length)
      this.journal.push(() => (prev === undefined ? slots.delete(sk) : slots.set(sk, prev)));
  }

  async clearStorage(address: Address): Promise<void> {
    this.setSlots(bytesToHex(address.bytes), { cleared: true, slots: new Map() });
  }

  async checkpoint(): Promise<void> {
    this.checkpoints.push(this.journal.length);
  }

  async commit(): Promise<void> {
    this.checkpoints.pop();
    // Outside any checkpoint nothing can be reverted any more: drop the undo entries.
    if (this.checkpoints.length === 0) this.journal = [];
  }

  async revert(): Promise<void> {
    const to = this.checkpoints.pop() ?? 0;
    while (this.journal.length > to) this.journal.pop()!();
  }

  async getStateRoot(): Promise<Uint8Array> {
    if (!this.rootOf) throw new Error('this state has no root computer');
    return this.rootOf(this.diff());
  }

  async setStateRoot(): Promise<void> {
    throw new Error('setStateRoot is not supported: open a JournaledState over the wanted state');
  }

  async hasStateRoot(): Promise<boolean> {
    return true;
  }

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const k = bytesToHexPair(address.bytes, key);
      let v = this.original.get(k);
      if (v === undefined) {
        v = await this.readStorage(address.bytes, key);
        this.original.set(k, v);
      }
      return v;
    },
    clear: (): void => this.original.clear(),
  };

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    return new JournaledState(this.base, this.rootOf);
  }

  // ---- for the builder ----

  diff(): StateDiff {
    return { accounts: this.accounts, storage: this.storage, code: this.codes };
  }

  /**
   * The accounts (hex keys) set since the last call, fields or slots, and starts over. A superset:
   * a write that was reverted stays in it. Between transactions, every key of `diff()` whose
   * value differs from the last call's is in it (a committed entry is never removed).
   */
  takeChanged(): Set<string> {
    const c = this.changed;
    this.changed = new Set();
    return c;
  }

  /** Addresses touched in this overlay (accounts or storage). */
  touched(): Uint8Array[] {
    const s = new Set([...this.accounts.keys(), ...this.storage.keys()]);
    return [...s].map(hexToBytes);
  }

  private setAccount(k: string, a: Account | null): void {
    const prev = this.accounts.get(k);
    this.accounts.set(k, a);
    this.changed.add(k);
    if (this.checkpoints.length)
      this.journal.push(() => (prev === undefined ? this.accounts.delete(k) : this.accounts.set(k, prev)));
  }

  private setSlots(k: string, o: SlotOverlay): void {
    const prev = this.storage.get(k);
    this.storage.set(k, o);
    this.changed.add(k);
    if (this.checkpoints.length)
      this.journal.push(() => (prev === undefined ? this.storage.delete(k) : this.storage.set(k, prev)));
  }
}
