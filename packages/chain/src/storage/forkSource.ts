/**
 * The remote node a fork (`--fork-url URL --fork-block-number N`) reads through: accounts,
 * storage and code at block N, and the blocks at or below N, each asked once and kept in the
 * data directory, so a restart answers what was read without the network.
 *
 *   state/ (flat state misses) ─> account / storage ─> LevelDB cache ('F' keys) ─> hit
 *                                                                              └> miss: queued
 *   calls queued in the same turn of the event loop ─> ONE JSON-RPC batch POST (up to 100 calls)
 *   blocks ≤ N (BlockReader misses) ─> eth_getBlockByNumber / ByHash + eth_getBlockReceipts
 *
 * Every request has a timeout (`--fork-timeout`, default 10 s); a remote that fails, times out or
 * answers an error gives ForkError `fork remote unreachable: <url>: <cause>` to the read that
 * needed it (rpc/errors.ts makes it -32000). Decision: docs/decisions/0144-fork-reads.md.
 */
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, hexToBytes } from '../primitives/hex.js';
import type { ChainStore } from './chainStore.js';
import { keys } from './keys.js';

export class ForkError extends Error {
  override readonly name = 'ForkError';
}

/** Calls in one JSON-RPC batch. */
const BATCH = 100;

/** An account at the fork block as the remote has it. */
export interface RemoteAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
}

interface Queued {
  method: string;
  params: unknown[];
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export interface ForkSourceOptions {
  url: string;
  blockNumber: bigint;
  /** Milliseconds a remote request may take. */
  timeoutMs: number;
  /**
   * Keep accounts and slots in the data directory (the fork block's state, read again and again).
   * False for the state of older blocks (rarely read, answered by the remote each time); code is
   * kept either way (by its hash: it cannot go stale).
   */
  keepState?: boolean;
}

export class ForkSource {
  /** Changed by anvil_setRpcUrl (execution/forkReset.ts): the same chain at another address. */
  url: string;
  readonly blockNumber: bigint;
  /** Milliseconds a remote request may take (`--fork-timeout`). */
  readonly timeoutMs: number;
  private readonly keepState: boolean;
  private queue: Queued[] = [];
  private id = 0;
  /** Reads under way, by cache key: concurrent misses of one key ask the remote once. */
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    o: ForkSourceOptions,
    /** Where fetched values are kept; undefined while the chain is being created. */
    private store?: ChainStore,
  ) {
    this.url = o.url;
    this.blockNumber = o.blockNumber;
    this.timeoutMs = o.timeoutMs;
    this.keepState = o.keepState ?? true;
  }

  /** The same remote at another block, for the state of blocks below the fork block. */
  at(blockNumber: bigint): ForkSource {
    return new ForkSource(
      { url: this.url, blockNumber, timeoutMs: this.timeoutMs, keepState: false },
      this.store,
    );
  }

  attach(store: ChainStore): void {
    this.store = store;
  }

  get blockTag(): string {
    return `0x${this.blockNumber.toString(16)}`;
  }

  /** One call, sent in the batch of its turn of the event loop. */
  call<T>(method: string, params: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) queueMicrotask(() => this.flush());
      this.queue.push({ method, params, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private flush(): void {
    const all = this.queue;
    this.queue = [];
    for (let i = 0; i < all.length; i += BATCH) void this.send(all.slice(i, i + BATCH));
  }

  private fail(cause: string): ForkError {
    return new ForkError(`fork remote unreachable: ${this.url}: ${cause}`);
  }

  private async send(calls: Queued[]): Promise<void> {
    const first = ++this.id;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    this.id += calls.length;
    let answers: { id: number; result?: unknown; error?: { code: number; message: string } }[];
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      answers = (await res.json()) as typeof answers;
      if (!Array.isArray(answers)) throw new Error('the answer to a batch is not a JSON array');
    } catch (e) {
      const err = e as Error;
      const cause =
        err.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms (--fork-timeout)`
          : ((err.cause as Error | undefined)?.message ?? err.message);
      const f = this.fail(cause);

      for (const c of calls) c.reject(f);
      return;
    }
    const byId = new Map(answers.map((a) => [a.id, a]));
    calls.forEach((c, i) => {
      const a = byId.get(first + i);
      if (!a) c.reject(this.fail(`no answer to ${c.method}`));
      else if (a.error) c.reject(this.fail(`${c.method}: ${a.error.message}`));
      else c.resolve(a.result);
    });
  }

  /** One read at a time per key: a second miss of the same key waits for the first. */
  private once<T>(key: Uint8Array, read: () => Promise<T>): Promise<T> {
    const k = bytesToHex(key);
    let p = this.inflight.get(k) as Promise<T> | undefined;
    if (!p) {
      p = read().finally(() => this.inflight.delete(k));
      this.inflight.set(k, p);
    }
    return p;
  }

  /**
   * The account at the fork block, or null when it does not exist there (nonce, balance and code
   * all empty). Its code is kept under its hash, where the flat state reads code.
   */
  async account(address: Uint8Array): Promise<RemoteAccount | null> {
    return (await this.accounts([address]))[0];
  }

  /**
   * Many accounts: the kept ones in one LevelDB call, the others in ONE JSON-RPC batch
   * (eth_getBalance, eth_getTransactionCount and eth_getCode each), kept in one LevelDB batch.
   */
  async accounts(addresses: Uint8Array[]): Promise<(RemoteAccount | null)[]> {
    const cacheKeys = addresses.map((a) => keys.forkAccount(a));
    const cached =
      this.keepState && this.store ? await this.store.getMany(cacheKeys) : addresses.map(() => undefined);
    const out: Promise<RemoteAccount | null>[] = addresses.map((address, i) => {
      const hit = cached[i];
      if (hit) return Promise.resolve(decodeRemote(hit));
      // Issued in this same turn for every miss: they go in one batch (see call()).
      return this.once(cacheKeys[i], () => this.fetchAccount(address, cacheKeys[i]));
    });
    return Promise.all(out);
  }

  private async fetchAccount(address: Uint8Array, key: Uint8Array): Promise<RemoteAccount | null> {
    const a = bytesToHex(address);
    const [balance, nonce, code] = await Promise.all([
      this.call<string>('eth_getBalance', [a, this.blockTag]),
      this.call<string>('eth_getTransactionCount', [a, this.blockTag]),
      this.call<string>('eth_getCode', [a, this.blockTag]),
    ]);
    const bytes = hexToBytes(code);
    const account: RemoteAccount = {
      nonce: BigInt(nonce),
      balance: BigInt(balance),
      codeHash: keccak256(bytes),
    };
    const exists = account.nonce > 0n || account.balance > 0n || bytes.length > 0;
    const ops: [Uint8Array, Uint8Array][] = this.keepState
      ? [[key, encodeRemote(exists ? account : null)]]
      : [];
    if (bytes.length) ops.unshift([keys.code(account.codeHash), bytes]);
    if (ops.length) await this.store?.putMany(ops);
    return exists ? account : null;
  }

  /** A slot at the fork block (leading zeros stripped; empty for zero). */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const key = keys.forkStorage(address, slot);
    return this.once(key, async () => {
      const cached = this.keepState ? await this.store?.get(key) : undefined;
      if (cached) return cached.subarray(1);
      const v = hexToBytes(
        await this.call<string>('eth_getStorageAt', [bytesToHex(address), bytesToHex(slot), this.blockTag]),
      );
      let i = 0;
      while (i < v.length && v[i] === 0) i++;
      const value = v.subarray(i);
      // One marker byte: an empty LevelDB value reads back as "not cached" in some backends.
      const stored = new Uint8Array(value.length + 1);
      stored[0] = 1;
      stored.set(value, 1);
      if (this.keepState) await this.store?.putMany([[key, stored]]);
      return value;
    });
  }

  /** A block by number as the remote's JSON (with full transactions), or null. */
  blockJson(n: bigint): Promise<Record<string, any> | null> {
    return this.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
  }

  blockJsonByHash(hash: Uint8Array): Promise<Record<string, any> | null> {
    return this.call('eth_getBlockByHash', [bytesToHex(hash), true]);
  }

  receiptsJson(n: bigint): Promise<Record<string, any>[] | null> {
    return this.call('eth_getBlockReceipts', [`0x${n.toString(16)}`]);
  }

  transactionJson(hash: Uint8Array): Promise<Record<string, any> | null> {
    return this.call('eth_getTransactionByHash', [bytesToHex(hash)]);
  }
}

/** rlp-free: [1 byte exists][nonce 8][balance 32][codeHash 32], or one 0 byte for "none". */
function encodeRemote(a: RemoteAccount | null): Uint8Array {
  if (!a) return Uint8Array.of(0);
  const out = new Uint8Array(1 + 8 + 32 + 32);
  out[0] = 1;
  const v = new DataView(out.buffer);
  v.setBigUint64(1, a.nonce);
  let b = a.balance;
  for (let i = 40; i >= 9; i--) {
    out[i] = Number(b & 0xffn);
    b >>= 8n;
  }
  out.set(a.codeHash, 41);
  return out;
}

function decodeRemote(b: Uint8Array): RemoteAccount | null {
  if (b[0] === 0) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.length);
  let balance = 0n;
  for (let i = 9; i <= 40; i++) balance = (balance << 8n) | BigInt(b[i]);
  return { nonce: v.getBigUint64(1), balance, codeHash: b.slice(41, 73) };
}
