/**
 * The journal's writer thread: every record lands whole and in order whether the thread or the
 * event loop made the write, a failed write says why and the next one works, and a writer never
 * keeps a process alive.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalWriter } from '../src/builder/journalWriter.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function file(): { name: string; fd: number } {
  const d = tempDir('wharf-jw-');
  dirs.push(d);
  const name = path.join(d, 'journal');
  const { O_WRONLY, O_CREAT, O_APPEND, O_DSYNC } = fs.constants;
  return { name, fd: fs.openSync(name, O_WRONLY | O_CREAT | O_APPEND | O_DSYNC) };
}

const record = (i: number, size: number) => Buffer.alloc(size, i % 251);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('JournalWriter', () => {
  it('lands every record whole and in order, finished at once (the event loop writes) or later (the thread)', async () => {
    const { name, fd } = file();
    const w = new JournalWriter();
    const expected: Buffer[] = [];
    for (let i = 0; i < 60; i++) {
      // Records of up to 300 KB: a flashblock of ~1,300 transfers as hex JSON.
      const r = record(i, 1 + ((i * 7919) % 300_000));
      expected.push(r);
      const write = w.begin(fd, r);
      // Every third finished at once, the others after the thread has had time to take them.
      if (i % 3) await pause(i % 2 ? 1 : 5);
      expect(await write.finish()).toBeGreaterThanOrEqual(0);
    }
    await w.close();
    fs.closeSync(fd);
    expect(fs.readFileSync(name).equals(Buffer.concat(expected))).toBe(true);
  });

  it('writes a record bigger than the shared buffer on the event loop', async () => {
    const { name, fd } = file();
    const w = new JournalWriter();
    const big = record(3, (1 << 20) + 17);
    await w.begin(fd, record(1, 10)).finish();
    await w.begin(fd, big).finish();
    await w.close();
    fs.closeSync(fd);
    expect(fs.readFileSync(name).equals(Buffer.concat([record(1, 10), big]))).toBe(true);
  });

  it('a failed write throws its errno code; the next write to a good file lands', async () => {
    const { name, fd } = file();
    const readOnly = fs.openSync(name, 'r');
    const w = new JournalWriter();
    const failing = w.begin(readOnly, record(1, 100));
    await pause(5); // the thread's write
    await expect(failing.finish()).rejects.toThrow(expect.objectContaining({ code: 'EBADF' }));
    await expect(w.begin(readOnly, record(2, 100)).finish()).rejects.toThrow(/EBADF/); // the event loop's
    await w.begin(fd, record(3, 100)).finish();
    await w.close();
    fs.closeSync(fd);
    fs.closeSync(readOnly);
    expect(fs.readFileSync(name).equals(record(3, 100))).toBe(true);
  });

  it('refuses a second write before the first is finished', async () => {
    const { fd } = file();
    const w = new JournalWriter();
    const first = w.begin(fd, record(1, 10));
    expect(() => w.begin(fd, record(2, 10))).toThrow(/already under way/);
    await first.finish();
    await w.close();
    fs.closeSync(fd);
  });

  it('does not keep a process alive', () => {
    // The built package, in a process with nothing else to do: it must exit once its timer has run.
    const dist = fileURLToPath(new URL('../dist/builder/journalWriter.js', import.meta.url));
    const { name, fd } = file();
    fs.closeSync(fd);
    const script = `
      import fs from 'node:fs';
      import { JournalWriter } from ${JSON.stringify(pathToFileURL(dist).href)};
      const fd = fs.openSync(${JSON.stringify(name)}, 'a');
      const w = new JournalWriter();
      await w.begin(fd, Buffer.from('one')).finish();
      setTimeout(async () => {
        const two = w.begin(fd, Buffer.from('two'));
        await new Promise((r) => setImmediate(r));
        await two.finish();
      }, 20);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(fs.readFileSync(name, 'utf8')).toBe('onetwo');
  });
});
