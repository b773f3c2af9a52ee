// A sealed block's body, receipts and senders go once to the body files (bodyFiles.ts, decision
// 0491); LevelDB keeps references. Read back the same, after a restart, after bytes a crash left
// past the last reference, and beside values stored in LevelDB before (read as they are).
import fs from 'node:fs';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { Account } from '@ethereumjs/util';
import { ClassicLevel } from 'classic-level';
import { hexToBytes, toHex } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { type BlockWrite, ChainStore } from '../src/storage/chainStore.js';
import { keys } from '../src/storage/keys.js';
import { decodeReceiptList, encodeReceipt } from '../src/storage/receiptCodec.js';
import { sendAllAtOnce, signTransfer } from './flashblocks-support.js';
import { DEV_KEYS, rpc, startTestNode, tempDir, waitFor } from './node-helpers.js';

const keccakOf = (raw: string) => toHex(keccak256(hexToBytes(raw as `0x${string}`)));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const b = (n: number, len = 32) => new Uint8Array(len).fill(n);
const u = (x: Uint8Array | undefined) => (x === undefined ? undefined : Uint8Array.from(x));
const addr = b(0xaa, 20);
const receipt = (n: number) =>
  encodeReceipt({ type: 2, status: 1, cumulativeGasUsed: BigInt(n), bloom: new Uint8Array(256), logs: [] });
/** A block's RLP of some size (the store does not decode it); past 16 KiB its body goes to the files. */
const rlpOf = (n: number, size = 20_000) => RLP.encode([b(n, 40), b(n + 1, size)]);

function block(n: number, size?: number): BlockWrite {
  return {
    hash: b(n),
    number: BigInt(n),
    rlp: rlpOf(n, size),
    receipts: RLP.encode([receipt(n), receipt(n + 1)]),
    senders: new Uint8Array([...b(n, 20), ...b(n + 1, 20)]),
    txHashes: [b(100 + n), b(150 + n)],
    accounts: new Map([['0xaa', { address: addr, rlp: new Account(BigInt(n), 1000n).serialize() }]]),
    clearedStorage: [],
    storage: [],
    code: [],
    nodes: [
      [keys.accountNode(Uint8Array.of(n % 16)), keccak256(Uint8Array.of(0xc2, n)), Uint8Array.of(0xc2, n)],
    ],
  };
}

async function open(): Promise<{ store: ChainStore; dir: string }> {
  const dir = path.join(tempDir('wharf-bodies-'), 'chain');
  dirs.push(path.dirname(dir));
  return { store: await ChainStore.open(dir), dir };
}

/** What LevelDB itself holds under `key` (the store closed). */
async function raw(dir: string, key: Uint8Array): Promise<Uint8Array | undefined> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  try {
    return await db.get(key);
  } finally {
    await db.close();
  }
}

const bodyFiles = (dir: string) =>
  fs
    .readdirSync(`${dir}-bodies`)
    .filter((f) => f.endsWith('.bodies'))
    .map((f) => path.join(`${dir}-bodies`, f));

async function expectBlock(s: ChainStore, n: number): Promise<void> {
  expect(u(await s.get(keys.block(b(n))))).toEqual(rlpOf(n));
  expect(decodeReceiptList((await s.get(keys.receipts(b(n))))!)).toEqual([receipt(n), receipt(n + 1)]);
  expect(u(await s.get(keys.senders(b(n))))).toEqual(new Uint8Array([...b(n, 20), ...b(n + 1, 20)]));
}

describe('block body files', () => {
  beforeAll(() => initKeccak());

  it('writes a block body and its forward diff once, to the body files; LevelDB holds small references; read back after a restart', async () => {
    const { store, dir } = await open();
    await store.writeBlock(block(1));
    await store.writeBlock(block(2));
    await expectBlock(store, 1);
    expect(store.written.bodyFileBytes).toBeGreaterThan(2 * rlpOf(1).length);
    await store.close();

    for (const key of [keys.block(b(2)), keys.receipts(b(2)), keys.senders(b(2)), keys.stateDiff(2n)])
      expect((await raw(dir, key))?.length).toBe(17);
    const files = bodyFiles(dir);
    expect(files).toHaveLength(1);
    // The block's RLP is in the file, as it is.
    expect(fs.readFileSync(files[0]).includes(Buffer.from(rlpOf(2)))).toBe(true);

    const again = await ChainStore.open(dir);
    await expectBlock(again, 1);
    await expectBlock(again, 2);
    const [x, y] = await again.getMany([keys.block(b(1)), keys.senders(b(2))]);
    expect(u(x)).toEqual(rlpOf(1));
    expect(u(y)).toEqual(new Uint8Array([...b(2, 20), ...b(3, 20)]));
    // The forward diff that rebuilds block 2's trie nodes at start (rebuildLayers.ts) is there too.
    const d = await again.stateDiffOf(2n);
    expect(d?.accounts.map((a) => [u(a.address), a.rlp && u(a.rlp)])).toEqual([
      [addr, new Account(2n, 1000n).serialize()],
    ]);
    await again.close();
  });

  it('bytes a crash left past the last reference are never read; the next blocks go after them', async () => {
    const { store, dir } = await open();
    await store.writeBlock(block(1));
    await store.close();
    // A body appended and synced whose batch never landed (kill -9 between the two).
    fs.appendFileSync(bodyFiles(dir)[0], Buffer.alloc(333, 0x5a));
    const again = await ChainStore.open(dir);
    await expectBlock(again, 1);
    await again.writeBlock(block(2));
    await again.close();
    const last = await ChainStore.open(dir);
    await expectBlock(last, 1);
    await expectBlock(last, 2);
    await last.close();
  });

  it('keeps a small body in LevelDB (a block of a few transactions: no second sync)', async () => {
    const { store, dir } = await open();
    await store.writeBlock(block(1, 300));
    expect(store.written.bodyFileBytes).toBe(0);
    await store.close();
    expect(u(await raw(dir, keys.block(b(1))))).toEqual(rlpOf(1, 300));
    const again = await ChainStore.open(dir);
    expect(u(await again.get(keys.block(b(1))))).toEqual(rlpOf(1, 300));
    await again.close();
  });

  it('reads a block stored in LevelDB itself (written before the body files) as it is', async () => {
    const { store, dir } = await open();
    await store.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.put(keys.block(b(7)), rlpOf(7));
    await db.put(keys.senders(b(7)), b(7, 20));
    await db.close();
    const again = await ChainStore.open(dir);
    expect(u(await again.get(keys.block(b(7))))).toEqual(rlpOf(7));
    expect(u(await again.get(keys.senders(b(7))))).toEqual(b(7, 20));
    await again.close();
  });

  it('a reference past the end of its file fails the read, naming the file', async () => {
    const { store, dir } = await open();
    await store.writeBlock(block(1));
    await store.close();
    fs.truncateSync(bodyFiles(dir)[0], 10);
    const again = await ChainStore.open(dir);
    await expect(again.get(keys.block(b(1)))).rejects.toThrow(
      /block body file .*000000\.bodies ends before byte/,
    );
    await again.close();
  });
});

describe('a busy block through the node (body files)', () => {
  it('answers its block, transactions and receipts the same from the body files, before and after a restart', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    // 200 transfers pooled together: one block of ~22 KB of transactions (past 16 KiB).
    const raws: string[] = [];
    for (let i = 0; i < 200; i++) raws.push(await signTransfer(DEV_KEYS[1], i));
    const a = await startTestNode({ dataDir, blockTime: 1, flashblockInterval: 100 });
    let answers: unknown[];
    let number: string;
    try {
      await sendAllAtOnce(a.url, raws);
      const last = await waitFor(
        () => rpc(a.url, 'eth_getTransactionReceipt', [keccakOf(raws[199])]),
        10_000,
      );
      number = last.blockNumber;
      // Sealed (not only pre-confirmed): the head passed its block.
      await waitFor(async () =>
        BigInt(await rpc(a.url, 'eth_blockNumber')) >= BigInt(number) ? true : undefined,
      );
      const read = (url: string) =>
        Promise.all([
          rpc(url, 'eth_getBlockByNumber', [number, true]),
          rpc(url, 'eth_getBlockReceipts', [number]),
          rpc(url, 'eth_getTransactionByHash', [keccakOf(raws[7])]),
          rpc(url, 'debug_getRawBlock', [number]),
        ]);
      answers = await read(a.url);
      await a.stop({ keepData: true });
      // The block went to the body files (not kept in LevelDB, as a small one would be), its
      // transactions not a second time: they are read from its flashblock journal records
      // (decision 0521), which hold them.
      const txBytes = raws.reduce((n, r) => n + (r.length - 2) / 2, 0);
      const folder = path.join(dataDir, 'chain-bodies');
      const sizes = (ext: string) =>
        fs
          .readdirSync(folder)
          .filter((f) => f.endsWith(ext))
          .reduce((n, f) => n + fs.statSync(path.join(folder, f)).size, 0);
      expect(sizes('.bodies')).toBeGreaterThan(0);
      expect(sizes('.bodies')).toBeLessThan(txBytes);
      expect(sizes('.journal')).toBeGreaterThan(txBytes);
      // Once: the journal is the transactions and their framing (4 bytes each, a few per
      // flashblock and block), not a second copy.
      expect(sizes('.journal')).toBeLessThan(txBytes * 1.25);
      const b = await startTestNode({ dataDir, blockTime: 1, flashblockInterval: 100 });
      try {
        expect(await read(b.url)).toEqual(answers);
      } finally {
        await b.stop();
      }
    } catch (e) {
      await a.stop().catch(() => {});
      throw e;
    }
    const [block] = answers as [{ transactions: unknown[] }];
    expect(block.transactions.length).toBeGreaterThan(0);
  }, 60_000);
});
