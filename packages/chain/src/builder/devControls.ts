/**
 * The test methods' side of the node (DevApi): mining modes, the clock, header settings, state
 * changes, impersonation, the pool, snapshots, reset and state files. Built by node.ts for dev
 * chains; the RPC reaches it through RpcContext.dev.
 *
 *   state changes ─> producer.edit (the block being built) ─> pending at the next flashblock
 *                                                          ─> sealed at once with automine
 *   evm_snapshot  ─> remember the head + the pool; record what each later seal changes
 *   evm_revert    ─> producer.rewind: journal emptied ─> one LevelDB batch (later blocks
 *                    dropped, changed keys back to their values at the snapshot, head) ─>
 *                    caches forgotten ─> a new block on the old head ─> the pool as it was
 *
 * Decisions: docs/decisions/0140-dev-methods-and-flashblocks.md, 0141-snapshots.md.
 *
 * One file (over 400 lines): every test method goes through the same few producer controls (edit,
 * rewind, seal modes), and their ordering rules are checked side by side.
 */
import { createTx } from '@ethereumjs/tx';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import { defaultCallLimits, estimateGas } from '../execution/call.js';
import { blockDeletions } from '../execution/blockDeletions.js';
import type { ChainContext } from '../execution/chainContext.js';
import { applyForkReset, type ForkTarget, moveForkRemote, prepareForkReset } from '../execution/forkReset.js';
import { writeGenesis } from '../execution/genesis.js';
import { bigintToBytes, bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.js';
import { type AnvilAccount, type AnvilState, slotKey } from '../state/anvilStateFile.js';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { TrieStateReader } from '../state/trieState.js';
import { accountFromFlat, slimAccount } from '../storage/flatAccount.js';
import { keys } from '../storage/keys.js';
import { IMPERSONATED_S, type PoolTransaction, type TxPool } from '../txpool/index.js';
import type { BlockProducer } from './blockProducer.js';
import type { DevApi, Hex, MineOptions, MiningMode, NodeInfo, UnsignedTx } from './devApi.js';
import type { SealedChanges } from './pendingBlock.js';

export class DevMethodError extends Error {
  override readonly name = 'DevMethodError';
}

interface Snapshot {
  head: { number: bigint; hash: Uint8Array; stateRoot: Uint8Array };
  /** The pool and the block being built's transactions, as raw signed transactions. */
  txs: Uint8Array[];
}

export interface DevControlsOptions {
  ctx: ChainContext;
  producer: BlockProducer;
  pool: TxPool;
  /** Rewrites the pool's journal with what the pool holds (after a revert or a drop). */
  rotatePoolJournal?: () => Promise<void>;
  /** Turns the node's logging on and off (anvil_setLoggingEnabled). */
  setLogging?: (on: boolean) => void;
  /** What the dev accounts get on a fork (--balance), at its start and after anvil_reset. */
  devBalance?: bigint;
}

const TIP = 1_000_000_000n;
/** Prefixes of every kind of LevelDB entry but the chain's config (anvil_reset deletes them). */
const CHAIN_PREFIXES = ['H', 'n', 'b', 'r', 's', 't', 'T', 'a', 'o', 'c', 'A', 'S', 'L', 'D'];

export class DevControls implements DevApi {
  private readonly ctx: ChainContext;
  private readonly producer: BlockProducer;
  private readonly pool: TxPool;
  private readonly impersonated = new Set<string>();
  private autoImpersonate = false;
  /** Seconds between blocks in interval mode (kept while automine or manual mode is on). */
  private intervalSeconds: number;
  private nextSnapshotId = 1n;
  private readonly snapshots = new Map<bigint, Snapshot>();
  /** What each block sealed since the oldest snapshot changed, by number. */
  private readonly changes = new Map<bigint, SealedChanges>();

  constructor(private readonly o: DevControlsOptions) {
    this.ctx = o.ctx;
    this.producer = o.producer;
    this.pool = o.pool;
    this.intervalSeconds = o.producer.sealMode === 'interval' ? o.producer.blockTime : 0;
    o.producer.onSealedChanges((block, changed) => {
      if (this.snapshots.size) this.changes.set(block.header.number, changed);
    });
  }

  // ---- mining ----

  async mine(o: MineOptions = {}): Promise<void> {
    const blocks = o.blocks ?? 1n;
    let ts = o.timestamp;
    if (ts !== undefined) this.checkTimestamp(ts);
    for (let i = 0n; i < blocks; i++) {
      const block = await this.producer.mine(ts);
      ts = o.interval ? block.header.timestamp + o.interval : undefined;
    }
  }

  mining(): MiningMode {
    const mode = this.producer.sealMode;
    return { automine: mode === 'auto', blockTime: mode === 'interval' ? this.intervalSeconds : 0 };
  }

  async setAutomine(on: boolean): Promise<void> {
    if (on) return this.producer.setSealMode('auto');
    if (this.producer.sealMode !== 'auto') return;
    await this.producer.setSealMode(this.intervalSeconds > 0 ? 'interval' : 'manual', this.intervalSeconds);
  }

  async setIntervalMining(seconds: number): Promise<void> {
    this.intervalSeconds = seconds;
    if (seconds > 0) return this.producer.setSealMode('interval', seconds);
    if (this.producer.sealMode === 'interval') await this.producer.setSealMode('manual');
  }

  increaseTime(seconds: bigint): bigint {
    return this.producer.increaseTime(seconds);
  }

  private checkTimestamp(ts: bigint): void {
    const head = this.ctx.blocks.head.header.timestamp;
    if (ts <= head)
      throw new DevMethodError(`timestamp ${ts} is not after the latest block's timestamp ${head}`);
  }

  async setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    this.checkTimestamp(timestamp);
    await this.producer.setNextHeader({ timestamp });
  }

  async setBlockTimestampInterval(seconds: bigint): Promise<void> {
    await this.producer.setTimestampInterval(seconds);
  }

  removeBlockTimestampInterval(): Promise<boolean> {
    return this.producer.setTimestampInterval(undefined);
  }

  setBlockGasLimit(gasLimit: bigint): Promise<void> {
    return this.producer.setNextHeader({ gasLimit });
  }

  setNextBlockBaseFeePerGas(baseFee: bigint): Promise<void> {
    return this.producer.setNextHeader({ baseFee });
  }

  setCoinbase(address: Uint8Array): Promise<void> {
    return this.producer.setNextHeader({ coinbase: address });
  }

  // ---- state ----

  setBalance(address: Uint8Array, balance: bigint): Promise<void> {
    return this.producer.edit((s) => s.modifyAccountFields(new Address(address), { balance }));
  }

  setNonce(address: Uint8Array, nonce: bigint): Promise<void> {
    return this.producer.edit((s) => s.modifyAccountFields(new Address(address), { nonce }));
  }

  setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    return this.producer.edit((s) => s.putCode(new Address(address), code));
  }

  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    return this.producer.edit(async (s) => {
      const a = new Address(address);
      // Storage needs an account to hang from (Anvil creates it too).
      if (!(await s.getAccount(a))) await s.putAccount(a, new Account());
      await s.putStorage(a, slot, value);
    });
  }

  // ---- impersonation ----

  impersonate(address: Uint8Array): void {
    this.impersonated.add(bytesToHex(address));
  }

  stopImpersonating(address: Uint8Array): void {
    this.impersonated.delete(bytesToHex(address));
  }

  setAutoImpersonate(on: boolean): void {
    this.autoImpersonate = on;
  }

  impersonating(address: Uint8Array | Hex): boolean {
    return (
      this.autoImpersonate ||
      this.impersonated.has(typeof address === 'string' ? address : bytesToHex(address))
    );
  }

  async sendUnsigned(t: UnsignedTx): Promise<Hex> {
    if (!this.impersonating(t.from))
      throw new DevMethodError(
        `${bytesToHex(t.from)} is not impersonated: call anvil_impersonateAccount first`,
      );
    const pending = this.producer.pending;
    const nonce = t.nonce ?? (await this.pool.pendingNonce(bytesToHex(t.from)));
    const gas =
      t.gas ??
      (await estimateGas(
        this.ctx,
        pending.state,
        {
          number: pending.number,
          timestamp: pending.header.timestamp,
          gasLimit: pending.header.gasLimit,
          baseFeePerGas: pending.header.baseFeePerGas,
          coinbase: pending.header.coinbase.bytes,
          mixHash: pending.header.mixHash,
          difficulty: pending.header.difficulty,
        },
        { ...t, to: t.to ?? null },
        defaultCallLimits(),
      ));
    const chainId = this.ctx.spec.chainId;
    const legacy = t.gasPrice !== undefined;
    const r = BigInt(bytesToHex(t.from));
    const data: Record<string, unknown> = {
      nonce,
      gasLimit: gas,
      to: t.to,
      value: t.value ?? 0n,
      data: t.data ?? new Uint8Array(0),
      r,
      s: IMPERSONATED_S,
    };
    if (legacy) {
      data.type = 0;
      data.gasPrice = t.gasPrice;
      data.v = chainId * 2n + 35n;
    } else {
      const tip = t.maxPriorityFeePerGas ?? TIP;
      data.type = 2;
      data.chainId = chainId;
      data.maxPriorityFeePerGas = tip;
      data.maxFeePerGas = t.maxFeePerGas ?? pending.baseFee * 2n + tip;
      data.v = 0n;
      if (t.accessList) data.accessList = t.accessList.map((e) => [e.address, e.storageKeys]);
    }
    const tx = createTx(data as never, { common: pending.header.common });
    return (await this.pool.add(tx.serialize())).hash;
  }

  // ---- the pool ----

  dropTransaction(hash: Hex): boolean {
    const h = hash.toLowerCase() as Hex;
    if (!this.pool.get(h)) return false;
    this.pool.onRejected(h, 'dropped (anvil_dropTransaction)');
    this.o.rotatePoolJournal?.().catch(() => {});
    return true;
  }

  dropAllTransactions(): void {
    for (const t of this.pooled()) this.pool.onRejected(t.hash, 'dropped (anvil_dropAllTransactions)');
    this.o.rotatePoolJournal?.().catch(() => {});
  }

  private pooled(): PoolTransaction[] {
    const { pending, queued } = this.pool.content();
    const out: PoolTransaction[] = [];
    for (const byNonce of [...pending.values(), ...queued.values()]) out.push(...byNonce.values());
    return out;
  }

  // ---- snapshots ----

  async snapshot(): Promise<bigint> {
    const id = this.nextSnapshotId++;
    const head = this.ctx.blocks.head;
    // What is pre-confirmed but not sealed goes back to the pool on revert, with what is pooled.
    const txs = [...this.producer.pending.txs.map((t) => t.raw), ...this.pooled().map((t) => t.raw)];
    this.snapshots.set(id, {
      head: { number: head.header.number, hash: head.hash(), stateRoot: head.header.stateRoot },
      txs,
    });
    return id;
  }

  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id);
    if (!snap) return false;
    // Older than --state-window: its state is gone from the tries (a clear error, nothing done).
    this.ctx.store.requireState(snap.head.number, this.ctx.blocks.head.header.number);
    // The snapshot and every later one are used up (as Anvil and Hardhat).
    for (const k of this.snapshots.keys()) if (k >= id) this.snapshots.delete(k);
    const canonical = await this.ctx.store.hashByNumber(snap.head.number);
    if (!canonical || !equalBytes(canonical, snap.head.hash)) return false;
    await this.producer.rewind(() => this.rewindTo(snap), 'head');
    for (const n of this.changes.keys())
      if (n > snap.head.number || !this.snapshots.size) this.changes.delete(n);
    await this.refillPool(snap.txs);
    return true;
  }

  /** Inside producer.rewind: the chain back to the snapshot's head, in one atomic batch. */
  private async rewindTo(snap: Snapshot): Promise<void> {
    const { store, blocks } = this.ctx;
    const head = blocks.head.header.number;
    const ops: { key: Uint8Array; value?: Uint8Array }[] = [];
    const accounts = new Set<string>();
    const storage = new Map<string, { cleared: boolean; slots: Set<string> }>();
    for (let n = snap.head.number + 1n; n <= head; n++) {
      const c = this.changes.get(n);
      if (!c) throw new DevMethodError(`cannot revert: what block ${n} changed was not recorded`);
      for (const a of c.accounts) accounts.add(a);
      for (const [a, s] of c.storage) {
        const have = storage.get(a) ?? { cleared: false, slots: new Set<string>() };
        have.cleared ||= s.cleared;
        for (const k of s.slots) have.slots.add(k);
        storage.set(a, have);
      }
    }
    // A fork keeps a deletion as an empty value: a missing key would read the remote's.
    const gone = this.ctx.fork ? new Uint8Array(0) : undefined;
    const then = new TrieStateReader(
      snap.head.stateRoot,
      this.ctx.nodes,
      (h) => store.get(keys.code(h)),
      this.ctx.fork,
    );
    for (const [a, s] of storage) {
      const address = hexToBytes(a);
      // Cleared since: the slots of the account's new life go. (A cleared account that had
      // storage at the snapshot cannot be listed without preimages: docs/decisions/0141.)
      if (s.cleared) for (const key of await store.storageKeys(address)) ops.push({ key });
      for (const slot of s.slots) {
        const v = await then.readStorage(address, hexToBytes(slot));
        ops.push({ key: keys.storage(address, hexToBytes(slot)), value: v.length ? v : gone });
      }
    }
    for (const a of accounts) {
      const account = await then.readAccount(hexToBytes(a));
      ops.push({
        key: keys.account(hexToBytes(a)),
        value: account ? slimAccount(account.serialize()) : gone,
      });
    }
    ops.push(...(await blockDeletions(this.ctx, snap.head.number, head)));
    ops.push({ key: keys.head, value: snap.head.hash });
    // The trie's diff layers above the snapshot go, with their blocks' forward diffs.
    ops.push(...store.revertStateTo(snap.head.number, head));
    await store.rewrite(ops);
    await this.ctx.flat.forget();
    await blocks.forget();
  }

  /** The pool holds exactly `txs` again (those that are still valid). */
  private async refillPool(txs: Uint8Array[]): Promise<void> {
    for (const t of this.pooled()) this.pool.onRejected(t.hash, 'reverted');
    for (const raw of txs) await this.pool.add(raw).catch(() => {});
    await this.o.rotatePoolJournal?.();
  }

  async reset(target?: ForkTarget): Promise<void> {
    // viem's reset() sends `{forking: {blockNumber: null}}`: neither a URL nor a block is no target.
    const fork = target?.url !== undefined || target?.blockNumber !== undefined ? target : undefined;
    if (this.ctx.fork) return this.resetFork(fork);
    if (fork)
      throw new DevMethodError(
        'anvil_reset to a fork needs a node started with --fork-url (this one is not a fork)',
      );
    await this.producer.rewind(async () => {
      const { store } = this.ctx;
      const ops: { key: Uint8Array }[] = [];
      for (const p of CHAIN_PREFIXES)
        for (const key of await store.keysWithPrefix(Uint8Array.of(p.charCodeAt(0)))) ops.push({ key });
      await store.rewrite(ops);
      store.stateReset();
      await this.ctx.flat.forget();
      await writeGenesis(this.ctx);
      await store.flushed();
      await this.ctx.blocks.forget();
    }, 'wall');
    this.snapshots.clear();
    this.changes.clear();
    await this.refillPool([]);
  }

  /**
   * A fork: back to the fork point (no target), or onto a new fork; what the remote must answer
   * is asked before production stops (execution/forkReset.ts). Then the dev accounts are funded
   * again in the first block on top, as when the fork started.
   */
  private async resetFork(target?: ForkTarget): Promise<void> {
    const prepared = await prepareForkReset(this.ctx, target);
    await this.producer.rewind(() => applyForkReset(this.ctx, prepared), 'wall');
    this.snapshots.clear();
    this.changes.clear();
    await this.refillPool([]);
    await this.fundForkedDevAccounts();
  }

  async setRpcUrl(url: string): Promise<void> {
    if (!this.ctx.fork)
      throw new DevMethodError('anvil_setRpcUrl: this node is not a fork (start it with --fork-url)');
    await moveForkRemote(this.ctx, url);
  }

  /** A fork's first block on top gives the dev accounts their balance, as Anvil's fork does. */
  async fundForkedDevAccounts(): Promise<void> {
    const { spec, fork } = this.ctx;
    const balance = this.o.devBalance ?? 0n;
    await this.producer.edit(async (s) => {
      for (const a of spec.devAccounts)
        await s.modifyAccountFields(new Address(hexToBytes(a.address)), { balance });
    });
    // Automine sealed it already; otherwise it is sealed now.
    if (this.ctx.blocks.head.header.number === fork?.number) await this.mine();
  }

  // ---- state files ----

  async dumpState(): Promise<AnvilState> {
    return this.producer.exclusive(async () => {
      const { store } = this.ctx;
      await store.flushed();
      const accounts = new Map<string, AnvilAccount>();
      const codeHashes = new Map<string, Uint8Array>();
      for (const [k, v] of await store.scan(keys.account(new Uint8Array(0)), Number.MAX_SAFE_INTEGER)) {
        if (!v.length) continue; // a fork's tombstone: deleted since the fork
        const acc = accountFromFlat(v);
        const address = bytesToHex(k.subarray(1));
        accounts.set(address, {
          nonce: acc.nonce,
          balance: acc.balance,
          code: new Uint8Array(0),
          storage: new Map(),
        });
        if (!equalBytes(acc.codeHash, KECCAK256_NULL)) codeHashes.set(address, acc.codeHash);
      }
      for (const [address, hash] of codeHashes)
        accounts.get(address)!.code = (await store.get(keys.code(hash))) ?? new Uint8Array(0);
      for (const [k, v] of await store.scan(keys.storagePrefix(new Uint8Array(0)), Number.MAX_SAFE_INTEGER)) {
        const address = bytesToHex(k.subarray(1, 21));
        if (v.length) accounts.get(address)?.storage.set(bytesToHex(k.subarray(21)), BigInt(bytesToHex(v)));
      }
      await overlayPending(this.producer.pending.state, accounts);
      const h = this.ctx.blocks.head.header;
      return {
        block: {
          number: h.number,
          timestamp: h.timestamp,
          gasLimit: h.gasLimit,
          baseFee: h.baseFeePerGas ?? 0n,
          coinbase: h.coinbase.bytes,
        },
        accounts,
        bestBlockNumber: h.number,
      };
    });
  }

  loadState(state: AnvilState): Promise<void> {
    return this.producer.edit(async (s) => {
      for (const [address, a] of state.accounts) {
        const at = new Address(hexToBytes(address));
        await s.putAccount(at, new Account(a.nonce, a.balance));
        if (a.code.length) await s.putCode(at, a.code);
        for (const [slot, v] of a.storage) await s.putStorage(at, hexToBytes(slot), bigintToBytes(v));
      }
    });
  }

  // ---- the node ----

  async nodeInfo(): Promise<NodeInfo> {
    const head = this.ctx.blocks.head;
    const p = this.producer.pending;
    return {
      currentBlockNumber: head.header.number,
      currentBlockTimestamp: head.header.timestamp,
      currentBlockHash: bytesToHex(head.hash()),
      chainId: this.ctx.spec.chainId,
      hardFork: p.header.common.hardfork(),
      transactionOrder: 'fees',
      environment: {
        baseFee: p.baseFee,
        chainId: this.ctx.spec.chainId,
        gasLimit: p.header.gasLimit,
        gasPrice: p.baseFee + TIP,
      },
      forkConfig: { forkUrl: this.ctx.fork?.source.url, forkBlockNumber: this.ctx.fork?.number },
    };
  }

  setLoggingEnabled(on: boolean): void {
    this.o.setLogging?.(on);
  }
}

/** Applies the pending block's overlays (oldest first) to a dump of the latest state. */
async function overlayPending(state: StateReader, accounts: Map<string, AnvilAccount>): Promise<void> {
  const layers: JournaledState[] = [];
  for (let s: StateReader = state; s instanceof JournaledState; s = s.base) layers.unshift(s);
  for (const layer of layers) {
    const d = layer.diff();
    for (const [k, a] of d.accounts) {
      if (!a) {
        accounts.delete(k);
        continue;
      }
      const have = accounts.get(k) ?? { nonce: 0n, balance: 0n, code: new Uint8Array(0), storage: new Map() };
      have.nonce = a.nonce;
      have.balance = a.balance;
      have.code = equalBytes(a.codeHash, KECCAK256_NULL)
        ? new Uint8Array(0)
        : await layer.readCode(a.codeHash);
      accounts.set(k, have);
    }
    for (const [k, o] of d.storage) {
      const have = accounts.get(k);
      if (!have) continue;
      if (o.cleared) have.storage.clear();
      for (const [slot, v] of o.slots) {
        const key = slotKey(BigInt(slot));
        if (v.length) have.storage.set(key, BigInt(bytesToHex(v)));
        else have.storage.delete(key);
      }
    }
  }
}
