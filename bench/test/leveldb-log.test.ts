/**
 * The LevelDB write figures bench/preconf.mjs prints (issue 33, where the disk's amplification
 * is): from LOG text as LevelDB 1.2x writes it, and from a real database's LOG after it compacts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { describe, expect, it } from 'vitest';
import { levelDbWrites, levelDbWritesOf } from '../lib/leveldb-log.mjs';

describe('levelDbWritesOf', () => {
  it('sums the level-0 tables and the compactions, not the moves or the starts', () => {
    const text = [
      '2026/11/29-16:51:48.584602 7f02add3c6c0 Delete type=3 #1',
      '2026/11/29-16:55:14.904631 7effa1fff6c0 Level-0 table #5: started',
      '2026/11/29-16:55:14.990516 7effa1fff6c0 Level-0 table #5: 4417139 bytes OK',
      '2026/11/29-16:56:00.931620 7effa1fff6c0 Level-0 table #13: 1268907 bytes OK',
      '2026/11/29-16:57:00.000000 7effa1fff6c0 Compacting 4@0 + 2@1 files',
      '2026/11/29-16:57:00.100000 7effa1fff6c0 Generated table #20@0: 5000 keys, 1048576 bytes',
      '2026/11/29-16:57:00.200000 7effa1fff6c0 Compacted 4@0 + 2@1 files => 3000000 bytes',
      '2026/11/29-16:57:00.300000 7effa1fff6c0 Moved #21 to level-2 1048576 bytes OK: files[ 0 3 1 0 0 0 0 ]',
      '2026/11/29-16:58:00.200000 7effa1fff6c0 Compacted 1@1 + 10@2 files => 11000000 bytes',
    ].join('\n');
    expect(levelDbWritesOf(text)).toEqual({
      flushed: 4417139 + 1268907,
      compacted: 14_000_000,
      compactions: 2,
    });
    expect(levelDbWritesOf('')).toEqual({ flushed: 0, compacted: 0, compactions: 0 });
  });

  it("reads a real database's LOG: its writes reach level 0 and compactions rewrite them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-leveldb-log-'));
    try {
      const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, {
        keyEncoding: 'view',
        valueEncoding: 'view',
        writeBufferSize: 64 << 10,
      });
      await db.open();
      // ~8 MB of random keys and values (nothing for its compression to take) through a 64 KB
      // memtable: many level-0 tables, then compactions.
      for (let b = 0; b < 64; b++) {
        const batch = db.batch();
        for (let i = 0; i < 1_000; i++)
          batch.put(crypto.getRandomValues(new Uint8Array(32)), crypto.getRandomValues(new Uint8Array(100)));
        await batch.write();
      }
      await db.compactRange(new Uint8Array([0]), new Uint8Array(33).fill(0xff));
      await db.close();
      const w = levelDbWrites(dir);
      expect(w.flushed).toBeGreaterThan(64 * 1_000 * 100);
      expect(w.compactions).toBeGreaterThan(0);
      expect(w.compacted).toBeGreaterThan(64 * 1_000 * 100);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives zeros for a folder without a LOG', () => {
    expect(levelDbWrites(path.join(os.tmpdir(), 'no-such-wharf-db'))).toEqual({
      flushed: 0,
      compacted: 0,
      compactions: 0,
    });
  });
});
