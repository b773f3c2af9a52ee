/**
 * The node's only database: blocks, receipts, indexes, latest flat state and every trie node,
 * in LevelDB under <dataDir>/chain. Every seal is ONE atomic batch (block + receipts + indexes +
 * state diff + trie nodes + head pointer), so a crash at any moment leaves the previous head or
 * the new one, never half of a block.
 *
 * Consumers: state/ (flat and trie readers), execution/ and builder/ (writeBlock), rpc/ via the
 * chain view in node.ts.
 */
import { ClassicLevel } from 'classic-level';
import { concat, u64 } from '../primitives/hex.js';
import { keys } from './keys.js';

export type Bytes = Uint8Array;

/** What one sealed block writes. Values in `accounts` null = deleted; empty storage value = zero. */
export interface BlockWrite {
  hash: Bytes;
  number: bigint;
  rlp: Bytes;
  receipts: Bytes;
  senders: Bytes;
  txHashes: Bytes[];
  accounts: Map<string, { address: Bytes; rlp: Bytes | null }>;
  /** Accounts whose every stored slot is dropped before `storage` is applied. */
  clearedStorage: Bytes[];
  storage: { address: Bytes; slot: Bytes; value: Bytes }[];
  code: { hash: Bytes; code: Bytes }[];
  nodes: [Bytes, Bytes][];
}

type Op = { type: 'put'; key: Bytes; value: Bytes } | { type: 'del'; key: Bytes };

export class ChainStore {
  private constructor(private readonly db: ClassicLevel<Bytes, Bytes>) {}

  static async open(dir: string): Promise<ChainStore> {
    const db = new ClassicLevel<Bytes, Bytes>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED')
        throw new Error(`the chain database ${dir} is in use by another process (is a node running on it?)`);
      throw e;
    }
    return new ChainStore(db);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  get(key: Bytes): Promise<Bytes | undefined> {
    return this.db.get(key);
  }

  async put(key: Bytes, value: Bytes): Promise<void> {
    await this.db.put(key, value);
  }

  getTrieNode(hash: Bytes): Promise<Bytes | undefined> {
    return this.db.get(keys.trieNode(hash));
  }

  /** Many trie nodes in one LevelDB call, in the order asked (the trie's `getMany`). */
  getTrieNodes(hashes: Bytes[]): Promise<(Bytes | undefined)[]> {
    return this.db.getMany(hashes.map((h) => keys.trieNode(h)));
  }

  async hashByNumber(n: bigint): Promise<Bytes | undefined> {
    return this.db.get(keys.canonical(n));
  }

  async txLocation(txHash: Bytes): Promise<{ blockHash: Bytes; index: number } | undefined> {
    const v = await this.db.get(keys.txIndex(txHash));
    if (!v) return undefined;
    return { blockHash: v.slice(0, 32), index: Number(Buffer.from(v.subarray(32)).readBigUInt64BE()) };
  }

  /** Up to `limit` entries whose key starts with `prefix` (start-up preloading). */
  async scan(prefix: Bytes, limit: number): Promise<[Bytes, Bytes][]> {
    const end = concat(prefix, new Uint8Array(64).fill(0xff));
    const out: [Bytes, Bytes][] = [];
    for await (const [k, v] of this.db.iterator({ gte: prefix, lt: end, limit })) out.push([k, v]);
    return out;
  }

  /** Storage keys of `address` in the flat state (for a whole-account storage clear). */
  async storageKeys(address: Bytes): Promise<Bytes[]> {
    const prefix = keys.storagePrefix(address);
    const end = concat(prefix, new Uint8Array(33).fill(0xff));
    const out: Bytes[] = [];
    for await (const k of this.db.keys({ gte: prefix, lt: end })) out.push(k);
    return out;
  }

  /** Writes a sealed block and its state diff atomically, moving the head to it. */
  async writeBlock(w: BlockWrite): Promise<void> {
    const ops: Op[] = [];
    for (const [hash, node] of w.nodes) ops.push({ type: 'put', key: keys.trieNode(hash), value: node });
    for (const c of w.code) ops.push({ type: 'put', key: keys.code(c.hash), value: c.code });
    for (const addr of w.clearedStorage)
      for (const k of await this.storageKeys(addr)) ops.push({ type: 'del', key: k });
    for (const s of w.storage) {
      const key = keys.storage(s.address, s.slot);
      ops.push(s.value.length ? { type: 'put', key, value: s.value } : { type: 'del', key });
    }
    for (const a of w.accounts.values()) {
      const key = keys.account(a.address);
      ops.push(a.rlp ? { type: 'put', key, value: a.rlp } : { type: 'del', key });
    }
    ops.push({ type: 'put', key: keys.block(w.hash), value: w.rlp });
    ops.push({ type: 'put', key: keys.receipts(w.hash), value: w.receipts });
    ops.push({ type: 'put', key: keys.senders(w.hash), value: w.senders });
    w.txHashes.forEach((h, i) => {
      ops.push({ type: 'put', key: keys.txIndex(h), value: concat(w.hash, u64(i)) });
    });
    ops.push({ type: 'put', key: keys.canonical(w.number), value: w.hash });
    ops.push({ type: 'put', key: keys.head, value: w.hash });
    await this.db.batch(ops, { sync: true } as never);
  }
}
