/** The flashblock journal file: what a crash can leave behind, and what load() makes of it. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FlashblockJournal } from '../src/builder/flashblockJournal.js';
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
});
