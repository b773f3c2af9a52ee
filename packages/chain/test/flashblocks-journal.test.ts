/** The flashblock journal file: what a crash can leave behind, and what load() makes of it. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlashblockJournal } from '../src/builder/flashblockJournal.js';
import { encodeJsonRecord } from '../src/builder/journalRecords.js';
import { JournalWriter } from '../src/builder/journalWriter.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journalPath(): string {
  const d = tempDir('wharf-fbj-');
  dirs.push(d);
  return path.join(d, 'flashblocks.journal');
}

const parentHash = new Uint8Array(32).fill(7);
const tx = (n: number) => Uint8Array.of(0x02, n, n, n);

describe('FlashblockJournal', () => {
  it('holds nothing before the first block opens', async () => {
    const j = await FlashblockJournal.open(journalPath());
    expect(await j.load()).toEqual([]);
    await j.close();
  });

  it('gives back the open block and its transactions in order; it outlives the next two blocks, not the third', async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p);
    await j.openBlock({ number: 5n, parentHash, timestamp: 1234n });
    await j.append(1, [tx(1), tx(2)]);
    await j.append(3, [tx(3)]);
    await j.close();

    const again = await FlashblockJournal.open(p);
    const [b, ...rest] = await again.load();
    expect(rest).toEqual([]);
    expect(b).toMatchObject({ number: 5n, timestamp: 1234n, lastIndex: 3 });
    expect(b.parentHash).toEqual(parentHash);
    expect(b.txs).toEqual([tx(1), tx(2), tx(3)]);

    // Block 5 is sealed but maybe not on disk yet: its records stay while 6 is built.
    await again.openBlock({ number: 6n, parentHash, timestamp: 1236n });
    await again.append(1, [tx(9)]);
    expect((await again.load()).map((x) => [x.number, x.txs])).toEqual([
      [5n, [tx(1), tx(2), tx(3)]],
      [6n, [tx(9)]],
    ]);
    // Block 6 sealed too: 5 and 6 stay while 7 is built.
    await again.openBlock({ number: 7n, parentHash, timestamp: 1238n });
    expect((await again.load()).map((x) => [x.number, x.txs.length, x.lastIndex])).toEqual([
      [5n, 3, 3],
      [6n, 1, 1],
      [7n, 0, 0],
    ]);
    // Opening 8 starts over the file of 5.
    await again.openBlock({ number: 8n, parentHash, timestamp: 1240n });
    expect((await again.load()).map((x) => [x.number, x.txs.length, x.lastIndex])).toEqual([
      [6n, 1, 1],
      [7n, 0, 0],
      [8n, 0, 0],
    ]);
    await again.close();
  });

  it('ignores a torn last record (a crash in the middle of an append)', async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p);
    await j.openBlock({ number: 2n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.close();
    const file = FlashblockJournal.fileNames(p)[2 % FlashblockJournal.FILES]; // block 2's file
    const whole = fs.readFileSync(file);
    // A record header that promises more bytes than the file has, then half a JSON body.
    const torn = Buffer.concat([whole, Buffer.from([0, 0, 1, 0]), Buffer.from('{"k":"txs","ind')]);
    fs.writeFileSync(file, torn);
    const again = await FlashblockJournal.open(p);
    expect((await again.load()).map((x) => x.txs)).toEqual([[tx(1)]]);
    await again.close();
  });

  it('keeps appends asked together in order, each settled once on disk (one writer thread, group commit)', async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p);
    await j.openBlock({ number: 4n, parentHash, timestamp: 9n });
    // Not awaited one by one: they queue in the writer, which takes them together.
    await Promise.all(Array.from({ length: 20 }, (_, i) => j.append(i + 1, [tx(i)])));
    await j.close();
    const again = await FlashblockJournal.open(p);
    const [b] = await again.load();
    expect(b.txs).toEqual(Array.from({ length: 20 }, (_, i) => tx(i)));
    expect(b.lastIndex).toBe(20);
    await again.close();
  });

  it('gives up an append the disk does not confirm within the budget, and never replays it if it lands later', async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p, { waitMs: 100 });
    await j.openBlock({ number: 3n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    // A fault: the disk confirms the next append 400 ms late (the bytes do land).
    const original = JournalWriter.prototype.write;
    const write = vi.spyOn(JournalWriter.prototype, 'write').mockImplementationOnce(async function (
      this: JournalWriter,
      op,
    ) {
      await original.call(this, op);
      await new Promise((r) => setTimeout(r, 400));
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
    await j.close();
    const again = await FlashblockJournal.open(p);
    const [b] = await again.load();
    expect(b.txs).toEqual([tx(1), tx(3)]);
    expect(b.lastIndex).toBe(2);
    await again.close();
  });

  it("writes a transaction's own bytes once, with 4 bytes of framing (decision 0420)", async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p);
    await j.openBlock({ number: 9n, parentHash, timestamp: 1n });
    const before = j.bytesWritten;
    const big = [new Uint8Array(110).fill(1), new Uint8Array(111).fill(2)];
    await j.append(1, big);
    // record length (4) + tag (1) + index (4) + per transaction its length (4) and bytes
    expect(j.bytesWritten - before).toBe(4 + 1 + 4 + (4 + 110) + (4 + 111));
    await j.close();
    const file = FlashblockJournal.fileNames(p)[9 % FlashblockJournal.FILES];
    expect(fs.statSync(file).size).toBe(j.bytesWritten);
    const again = await FlashblockJournal.open(p);
    expect((await again.load())[0].txs).toEqual(big);
    await again.close();
  });

  it('reads a journal written in the JSON format of before, and binary records appended after it', async () => {
    const p = journalPath();
    const file = FlashblockJournal.fileNames(p)[7 % FlashblockJournal.FILES];
    fs.writeFileSync(
      file,
      Buffer.concat([
        encodeJsonRecord({ k: 'open', number: 7n, parentHash, timestamp: 77n }),
        encodeJsonRecord({ k: 'txs', index: 1, txs: [tx(1), tx(2)] }),
        encodeJsonRecord({ k: 'txs', index: 2, txs: [tx(3)] }),
        encodeJsonRecord({ k: 'void', index: 2 }),
      ]),
    );
    const j = await FlashblockJournal.open(p);
    const [b] = await j.load();
    expect(b).toMatchObject({ number: 7n, timestamp: 77n, lastIndex: 1 });
    expect(b.parentHash).toEqual(parentHash);
    expect(b.txs).toEqual([tx(1), tx(2)]);
    await j.close();
  });

  it('stops at a record whose body does not decode: nothing after it is replayed', async () => {
    const p = journalPath();
    const j = await FlashblockJournal.open(p);
    await j.openBlock({ number: 2n, parentHash, timestamp: 1n });
    await j.append(1, [tx(1)]);
    await j.close();
    const file = FlashblockJournal.fileNames(p)[2 % FlashblockJournal.FILES];
    // A txs record whose one transaction claims 200 bytes in a body of 13, then a valid record.
    const bad = Buffer.from([0, 0, 0, 13, 0x02, 0, 0, 0, 2, 0, 0, 0, 200, 1, 2, 3, 4]);
    const good = Buffer.from([0, 0, 0, 9, 0x02, 0, 0, 0, 3, 0, 0, 0, 0]);
    fs.appendFileSync(file, Buffer.concat([bad, good]));
    const again = await FlashblockJournal.open(p);
    expect((await again.load()).map((x) => [x.txs, x.lastIndex])).toEqual([[[tx(1)], 1]]);
    await again.close();
  });

  it('refuses a journal whose files cannot be opened, naming the cause', async () => {
    const p = path.join(journalPath(), 'missing-dir', 'flashblocks.journal');
    await expect(FlashblockJournal.open(p)).rejects.toThrow(/cannot open the flashblock journal: ENOENT/);
  });

  it.runIf(process.platform === 'linux')(
    "names its writer thread, a thread of this process (kept at the main thread's priority by the CLI)",
    async () => {
      const j = await FlashblockJournal.open(journalPath());
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
