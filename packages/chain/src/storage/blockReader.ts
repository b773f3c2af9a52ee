/**
 * Sealed blocks, their receipts and senders, by hash or number, with small caches of decoded
 * blocks (RPC reads the same few recent blocks over and over).
 */
import {
  type Block,
  type BlockHeader,
  createBlockFromRLP,
  createBlockHeaderFromRLP,
} from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex } from '../primitives/hex.js';
import type { ChainStore } from './chainStore.js';
import { remoteBlock, remoteBlockEntries } from './forkBlocks.js';
import type { ForkSource } from './forkSource.js';
import { keys } from './keys.js';
import { decodeReceiptList, decodeStoredReceipts, type StoredReceipt } from './receiptCodec.js';

const CACHE = 512;
/**
 * Decoded blocks and receipts are kept up to this many transactions in all: 512 full blocks of
 * 2,000 transfers would be a million transaction objects (gigabytes); 10,000 is five such blocks. Oldest go first.
 */
const CACHE_TXS = 10_000;

export class BlockReader {
  private readonly blocks = new Map<string, Block>();
  private blockTxs = 0;
  private readonly receipts = new Map<string, StoredReceipt[]>();
  private receiptCount = 0;
  private readonly numbers = new Map<bigint, Uint8Array>();
  private readonly sizes = new Map<string, number>();
  head!: Block;
  /** Hash of block 0 (EIP-2124 fork ids start from it). */
  genesisHash!: Uint8Array;
  /**
   * On a fork: blocks below the fork block are the remote's, fetched on first read and stored
   * (forkBlocks.ts). Set by openChain.
   */
  fork?: { source: ForkSource; number: bigint; genesisHash: Uint8Array };

  constructor(
    private readonly store: ChainStore,
    private readonly common: Common,
  ) {}

  async loadHead(): Promise<Block | undefined> {
    const h = await this.store.get(keys.head);
    if (!h) return undefined;
    // A fork's block 0 is the remote's: its hash is in the fork's config (no network at start).
    this.genesisHash = (await this.store.hashByNumber(0n)) ?? this.fork!.genesisHash;
    const b = await this.byHash(h);
    if (b) this.head = b;
    return b;
  }

  /** Forgets cached blocks and reads the head again: the chain was rewound (evm_revert, anvil_reset). */
  async forget(): Promise<Block | undefined> {
    this.blocks.clear();
    this.blockTxs = 0;
    this.receipts.clear();
    this.receiptCount = 0;
    this.numbers.clear();
    this.sizes.clear();
    return this.loadHead();
  }

  /** Called after a seal made `block` the head (the database already has it). */
  setHead(block: Block, size?: number): void {
    this.head = block;
    if (size !== undefined) this.sizes.set(bytesToHex(block.hash()), size);
    if (block.header.number === 0n) this.genesisHash = block.hash();
    this.remember(block);
    this.numbers.set(block.header.number, block.hash());
  }

  decode(rlp: Uint8Array): Block {
    return createBlockFromRLP(rlp, { common: this.common, setHardfork: true });
  }

  async byHash(hash: Uint8Array): Promise<Block | undefined> {
    const k = bytesToHex(hash);
    const c = this.blocks.get(k);
    if (c) return c;
    const rlp = await this.store.get(keys.block(hash));
    if (!rlp) return this.fork ? this.remoteByHash(hash) : undefined;
    const b = this.decode(rlp);
    this.remember(b);
    this.sizes.set(k, rlp.length);
    return b;
  }

  async hashOf(n: bigint): Promise<Uint8Array | undefined> {
    if (this.head && n > this.head.header.number) return undefined;
    let h = this.numbers.get(n);
    if (!h) {
      h = await this.store.hashByNumber(n);
      if (!h && this.fork && n < this.fork.number) h = (await this.fetchRemote(n))?.hash();
      if (h) {
        if (this.numbers.size > 100_000) this.numbers.clear();
        this.numbers.set(n, h);
      }
    }
    return h;
  }

  async byNumber(n: bigint): Promise<Block | undefined> {
    const h = await this.hashOf(n);
    return h ? this.byHash(h) : undefined;
  }

  /**
   * A sealed header by number without decoding the block's transactions (eth_getLogs scans
   * headers for their bloom): the header is the first item of the stored block RLP.
   */
  async headerByNumber(n: bigint): Promise<BlockHeader | undefined> {
    const hash = await this.hashOf(n);
    if (!hash) return undefined;
    const cached = this.blocks.get(bytesToHex(hash));
    if (cached) return cached.header;
    const rlp = await this.store.get(keys.block(hash));
    if (!rlp) return undefined;
    return createBlockHeaderFromRLP(firstItem(rlp), { common: this.common, setHardfork: true });
  }

  async rawBlock(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.store.get(keys.block(hash));
  }

  async rawReceipts(hash: Uint8Array): Promise<Uint8Array[]> {
    const raw = await this.store.get(keys.receipts(hash));
    return raw ? decodeReceiptList(raw) : [];
  }

  async receiptsOf(hash: Uint8Array): Promise<StoredReceipt[]> {
    const k = bytesToHex(hash);
    let r = this.receipts.get(k);
    if (!r) {
      const raw = await this.store.get(keys.receipts(hash));
      r = raw ? decodeStoredReceipts(raw) : [];
      this.receipts.set(k, r);
      this.receiptCount += r.length;
      // Maps iterate in insertion order: the first key is the oldest.
      for (const [old, list] of this.receipts) {
        if (this.receipts.size <= 1 || (this.receipts.size <= CACHE && this.receiptCount <= CACHE_TXS)) break;
        this.receipts.delete(old);
        this.receiptCount -= list.length;
      }
    }
    return r;
  }

  async sendersOf(hash: Uint8Array): Promise<Uint8Array[]> {
    const raw = (await this.store.get(keys.senders(hash))) ?? new Uint8Array(0);
    const out: Uint8Array[] = [];
    for (let i = 0; i < raw.length; i += 20) out.push(raw.slice(i, i + 20));
    return out;
  }

  txLocation(txHash: Uint8Array) {
    return this.store.txLocation(txHash);
  }

  /**
   * A fork: where a transaction of a block below the fork block is, asked from the remote (and
   * that block stored). Readers ask this last, after their own blocks and the pending block.
   */
  async remoteTxLocation(txHash: Uint8Array) {
    if (!this.fork) return undefined;
    const tx = await this.fork.source.transactionJson(txHash);
    if (!tx?.blockNumber || BigInt(tx.blockNumber) >= this.fork.number) return undefined;
    await this.fetchRemote(BigInt(tx.blockNumber));
    return this.store.txLocation(txHash);
  }

  /** A fork: the remote's block `n` (below the fork block), stored for every later read. */
  private async fetchRemote(n: bigint): Promise<Block | undefined> {
    const fork = this.fork!;
    const json = await fork.source.blockJson(n);
    if (!json) return undefined;
    const rb = await remoteBlock(fork.source, this.common, json);
    await this.store.putMany(remoteBlockEntries(rb));
    this.remember(rb.block);
    return rb.block;
  }

  private async remoteByHash(hash: Uint8Array): Promise<Block | undefined> {
    const fork = this.fork!;
    const json = await fork.source.blockJsonByHash(hash);
    if (!json || BigInt(json.number) >= fork.number) return undefined;
    const rb = await remoteBlock(fork.source, this.common, json);
    await this.store.putMany(remoteBlockEntries(rb));
    this.remember(rb.block);
    return rb.block;
  }

  /** RLP size of a sealed block (eth_getBlockBy* `size`) without re-encoding it. */
  sizeOf(block: Block): number {
    const k = bytesToHex(block.hash());
    let n = this.sizes.get(k);
    if (n === undefined) {
      n = block.serialize().length;
      this.sizes.set(k, n);
    }
    return n;
  }

  private remember(b: Block): void {
    if (this.sizes.size >= CACHE * 4) this.sizes.clear();
    const k = bytesToHex(b.hash());
    if (this.blocks.has(k)) return;
    this.blocks.set(k, b);
    this.blockTxs += b.transactions.length;
    for (const [old, block] of this.blocks) {
      if (this.blocks.size <= 1 || (this.blocks.size <= CACHE && this.blockTxs <= CACHE_TXS)) break;
      this.blocks.delete(old);
      this.blockTxs -= block.transactions.length;
    }
  }
}

/** The first item of an RLP list (its full encoding), found from the length prefixes alone. */
function firstItem(list: Uint8Array): Uint8Array {
  const payloadStart = (b: Uint8Array, at: number): [start: number, length: number] => {
    const p = b[at];
    if (p < 0x80) return [at, 1];
    if (p < 0xb8) return [at + 1, p - 0x80];
    if (p < 0xc0) {
      const n = p - 0xb7;
      return [at + 1 + n, readLength(b, at + 1, n)];
    }
    if (p < 0xf8) return [at + 1, p - 0xc0];
    const n = p - 0xf7;
    return [at + 1 + n, readLength(b, at + 1, n)];
  };
  const [start] = payloadStart(list, 0);
  const [itemStart, itemLength] = payloadStart(list, start);
  return list.subarray(start, itemStart + itemLength);
}

function readLength(b: Uint8Array, at: number, n: number): number {
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + b[at + i];
  return len;
}
