/**
 * The flashblock journal: an append-only log in segments whose records are the sealed blocks'
 * bodies (decision 0521). What a crash can leave behind, what load() makes of it, where a block's
 * records are, and the three files of before 0521 still read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlashblockJournal } from '../src/builder/flashblockJournal.js';
import { JournalWriter } from '../src/builder/journalWriter.js';
import { blockTxsOf, encodeJsonRecord, encodeRecord } from '../src/storage/journalRecords.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journalDir(): string {
  const d = tempDir('wharf-fbj-');
  dirs.push(d);
  return path.join(d, 'chain-bodies');
}

const parentHash = new Uint8Array(32).fill(7);
const tx = (n: number) => Uint8Array.of(0x02, n, n, n);
/** A block's transactions from its records, as plain Uint8Arrays. */
const txsIn = (bytes: Uint8Array) => blockTxsOf(bytes)?.map((t) => Uint8Array.from(t));
const segmentFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.journal'))
    .sort()
    .map((f) => path.join(dir, f));

describe('FlashblockJournal', () => {
  it('holds nothing before the first block opens', async () => {
    const j = await FlashblockJournal.open(journalDir());
    expect(await j.load()).toEqual([]);
    await j.close();
  });

  it('keeps every block, and reads from where the newest block on disk starts', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 5n, parentHash, timestamp: 1234n });
    await j.append(1, [tx(1), tx(2)]);
    await j.append(3, [tx(3)]);
    for (const n of [6n, 7n, 8n]) {
      await j.openBlock({ number: n, parentHash, timestamp: 1230n + n });
      await j.append(1, [tx(Number(n))]);
    }
    const seven = j.rangeOf(8n);
    expect(j.rangeOf(7n)).toBeUndefined(); // only the block being built
    await j.close();

    const again = await FlashblockJournal.open(dir);
    const all = await again.load();
    expect(all.map((x) => [x.number, x.txs, x.lastIndex])).toEqual([
      [5n, [tx(1), tx(2), tx(3)], 3],
      [6n, [tx(6)], 1],
      [7n, [tx(7)], 1],
      [8n, [tx(8)], 1],
    ]);
    expect(all[0]).toMatchObject({ timestamp: 1234n });
    expect(all[0].parentHash).toEqual(parentHash);
    await again.close();
    // From block 8's records on (keys.journalStart after block 8 is on disk).
    const from = await FlashblockJournal.open(dir, {
      from: { segment: seven!.segment, offset: seven!.from },
    });
    expect((await from.load()).map((x) => x.number)).toEqual([8n]);
    await from.close();
  });

  it("names a block's records: they decode to its transactions, in order", async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 1n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.openBlock({ number: 2n, parentHash, timestamp: 2n });
    await j.append(1, [tx(2), tx(3)]);
    await j.append(2, []);
    await j.append(3, [tx(4)]);
    const r = j.rangeOf(2n)!;
    expect(r.complete).toBe(true);
    await j.close();
    const [file] = segmentFiles(dir);
    const bytes = fs.readFileSync(file).subarray(r.from, r.to);
    expect(txsIn(bytes)).toEqual([tx(2), tx(3), tx(4)]);
    // Anything else than one block's records is not a body.
    expect(blockTxsOf(fs.readFileSync(file).subarray(0, r.to))).toBeUndefined();
    expect(blockTxsOf(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
  });

  it('ignores a torn last record (a crash in the middle of an append), and appends after a start in a new segment', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 2n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.close();
    const [file] = segmentFiles(dir);
    // A record header that promises more bytes than the file has, then part of a body.
    fs.appendFileSync(file, Buffer.concat([Buffer.from([0, 0, 1, 0]), Buffer.from([0x02, 0, 0])]));
    const again = await FlashblockJournal.open(dir);
    expect((await again.load()).map((x) => x.txs)).toEqual([[tx(1)]]);
    // The next block goes to a new segment: a later load reads past the torn record.
    await again.openBlock({ number: 3n, parentHash, timestamp: 2n });
    await again.append(1, [tx(5)]);
    expect(again.rangeOf(3n)!.segment).toBe(1);
    await again.close();
    expect(segmentFiles(dir)).toHaveLength(2);
    const third = await FlashblockJournal.open(dir);
    expect((await third.load()).map((x) => [x.number, x.txs])).toEqual([
      [2n, [tx(1)]],
      [3n, [tx(5)]],
    ]);
    await third.close();
  });

  it('opens a block in a new segment once the current one is long enough', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir, { segmentBytes: 100 });
    await j.openBlock({ number: 1n, parentHash, timestamp: 1n });
    await j.append(1, [new Uint8Array(120).fill(1)]);
    await j.openBlock({ number: 2n, parentHash, timestamp: 2n });
    await j.append(1, [tx(2)]);
    expect(j.rangeOf(2n)).toMatchObject({ segment: 1, from: 0, complete: true });
    await j.close();
    const again = await FlashblockJournal.open(dir);
    expect((await again.load()).map((x) => x.number)).toEqual([1n, 2n]);
    await again.close();
  });

  it('keeps appends asked together in order, each settled once on disk (one writer thread, group commit)', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 4n, parentHash, timestamp: 9n });
    // Not awaited one by one: they queue in the writer, which takes them together.
    await Promise.all(Array.from({ length: 20 }, (_, i) => j.append(i + 1, [tx(i)])));
    const r = j.rangeOf(4n)!;
    expect(r.complete).toBe(true);
    await j.close();
    expect(txsIn(fs.readFileSync(segmentFiles(dir)[0]).subarray(r.from, r.to))).toEqual(
      Array.from({ length: 20 }, (_, i) => tx(i)),
    );
    const again = await FlashblockJournal.open(dir);
    const [b] = await again.load();
    expect(b.txs).toEqual(Array.from({ length: 20 }, (_, i) => tx(i)));
    expect(b.lastIndex).toBe(20);
    await again.close();
  });

  it('gives up an append the disk does not confirm within the budget, and never replays it if it lands later', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir, { waitMs: 100 });
    await j.openBlock({ number: 3n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    // A fault: the disk confirms the next append 400 ms late (the bytes do land).
    const original = JournalWriter.prototype.write;
    const write = vi.spyOn(JournalWriter.prototype, 'write').mockImplementationOnce(async function (
      this: JournalWriter,
      op,
    ) {
      const w = await original.call(this, op);
      await new Promise((r) => setTimeout(r, 400));
      return w;
    });
    try {
      await expect(j.append(2, [tx(2), tx(3)])).rejects.toThrow(
        /did not confirm a write within 100 ms \(--journal-wait\): flashblock 2 is not shown/,
      );
    } finally {
      write.mockRestore();
    }
    // The builder tries flashblock 2 again with what it has then.
    await j.append(2, [tx(3)]);
    // Its body is written whole: the records are not one clean run.
    expect(j.rangeOf(3n)!.complete).toBe(false);
    await j.close();
    const again = await FlashblockJournal.open(dir);
    const [b] = await again.load();
    expect(b.txs).toEqual([tx(1), tx(3)]);
    expect(b.lastIndex).toBe(2);
    await again.close();
  });

  it('replays nothing written before a reset (evm_revert), and what follows it', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 3n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.reset();
    expect(j.rangeOf(3n)).toBeUndefined();
    await j.openBlock({ number: 2n, parentHash, timestamp: 2n });
    await j.append(1, [tx(2)]);
    await j.close();
    const again = await FlashblockJournal.open(dir);
    expect((await again.load()).map((x) => [x.number, x.txs])).toEqual([[2n, [tx(2)]]]);
    await again.close();
  });

  it("writes a transaction's own bytes once, with 4 bytes of framing (decision 0420)", async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 9n, parentHash, timestamp: 1n });
    const before = j.bytesWritten;
    const big = [new Uint8Array(110).fill(1), new Uint8Array(111).fill(2)];
    await j.append(1, big);
    // record length (4) + tag (1) + index (4) + per transaction its length (4) and bytes
    expect(j.bytesWritten - before).toBe(4 + 1 + 4 + (4 + 110) + (4 + 111));
    await j.close();
    expect(fs.statSync(segmentFiles(dir)[0]).size).toBe(j.bytesWritten);
    const again = await FlashblockJournal.open(dir);
    expect((await again.load())[0].txs).toEqual(big);
    await again.close();
  });

  it('reads the three files of before decision 0521 (JSON records of before 0420 too), and removes them on request', async () => {
    const dir = journalDir();
    fs.mkdirSync(dir, { recursive: true });
    const legacyPath = path.join(path.dirname(dir), 'flashblocks.journal');
    const [f0, f1, f2] = FlashblockJournal.legacyFileNames(legacyPath);
    fs.writeFileSync(
      f1,
      Buffer.concat([
        encodeJsonRecord({ k: 'open', number: 7n, parentHash, timestamp: 77n }),
        encodeJsonRecord({ k: 'txs', index: 1, txs: [tx(1), tx(2)] }),
        encodeJsonRecord({ k: 'txs', index: 2, txs: [tx(3)] }),
        encodeJsonRecord({ k: 'void', index: 2 }),
      ]),
    );
    fs.writeFileSync(
      f2,
      Buffer.concat([
        encodeRecord({ k: 'open', number: 8n, parentHash, timestamp: 78n }),
        encodeRecord({ k: 'txs', index: 1, txs: [tx(4)] }),
      ]),
    );
    fs.writeFileSync(f0, encodeRecord({ k: 'open', number: 6n, parentHash, timestamp: 76n }));
    const j = await FlashblockJournal.open(dir, { legacyPath });
    const blocks = await j.load();
    expect(blocks.map((b) => [b.number, b.txs, b.lastIndex])).toEqual([
      [6n, [], 0],
      [7n, [tx(1), tx(2)], 1],
      [8n, [tx(4)], 1],
    ]);
    expect(blocks[1].parentHash).toEqual(parentHash);
    await j.dropLegacy();
    expect([f0, f1, f2].some((f) => fs.existsSync(f))).toBe(false);
    await j.close();
  });

  it('stops a segment at a record whose body does not decode: nothing after it there is replayed', async () => {
    const dir = journalDir();
    const j = await FlashblockJournal.open(dir);
    await j.openBlock({ number: 2n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.close();
    // A txs record whose one transaction claims 200 bytes in a body of 13, then a valid record.
    const bad = Buffer.from([0, 0, 0, 13, 0x02, 0, 0, 0, 2, 0, 0, 0, 200, 1, 2, 3, 4]);
    const good = Buffer.from([0, 0, 0, 9, 0x02, 0, 0, 0, 3, 0, 0, 0, 0]);
    fs.appendFileSync(segmentFiles(dir)[0], Buffer.concat([bad, good]));
    const again = await FlashblockJournal.open(dir);
    expect((await again.load()).map((x) => [x.txs, x.lastIndex])).toEqual([[[tx(1)], 1]]);
    await again.close();
  });

  it('refuses a journal whose folder cannot be made, naming the cause', async () => {
    const file = path.join(path.dirname(journalDir()), 'a-file');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    await expect(FlashblockJournal.open(path.join(file, 'chain-bodies'))).rejects.toThrow(
      /cannot open the flashblock journal: (ENOTDIR|EEXIST)/,
    );
  });

  it.runIf(process.platform === 'linux')(
    "names its writer thread, a thread of this process (kept at the main thread's priority by the CLI)",
    async () => {
      const j = await FlashblockJournal.open(journalDir());
      try {
        expect(j.threadId).toBeGreaterThan(0);
        expect(j.threadId).not.toBe(process.pid);
        expect(fs.readdirSync('/proc/self/task').map(Number)).toContain(j.threadId);
      } finally {
        await j.close();
      }
    },
  );
});
