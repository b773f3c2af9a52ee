/**
 * bench/preconf.mjs --keep-data-dir and bench/restart.mjs, as a user runs them on the built CLI
 * (dist/, built by `npm run typecheck`): a short run leaves its node's data dir after kill -9,
 * with the LevelDB figures printed, and a start on a copy of it reaches the same head and seals
 * the next block.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { freePort } from '../lib/peers.mjs';

const run = promisify(execFile);
const bench = (name: string) => path.resolve(import.meta.dirname, '..', name);

it('keeps a killed run’s data dir and times a start on it', async () => {
  const port = await freePort();
  const { stdout } = await run(
    process.execPath,
    [
      bench('preconf.mjs'),
      '--rate',
      '50',
      '--seconds',
      '5',
      '--senders',
      '5',
      '--idle',
      '0',
      '--port',
      String(port),
      '--keep-data-dir',
    ],
    { maxBuffer: 1 << 24 },
  );
  const dir = stdout.match(/data dir kept \(the node killed -9 as the load ended\): (\S+)/)?.[1];
  expect(dir).toBeDefined();
  try {
    expect(fs.existsSync(path.join(dir as string, 'chain-trie'))).toBe(true);
    expect(stdout).toMatch(/LevelDB's tables written per block \(its LOG\): chain [\d.]+ KB from memtables/);
    const restart = await run(
      process.execPath,
      [
        bench('restart.mjs'),
        '--data-dir',
        dir as string,
        '--port',
        String(await freePort()),
        '--accounts',
        '5',
      ],
      { maxBuffer: 1 << 24 },
    );
    const head = Number(restart.stdout.match(/head (\d+)/)?.[1]);
    // 10 s of 2 s blocks, and the blocks of the warm-up.
    expect(head).toBeGreaterThanOrEqual(2);
    expect(restart.stdout).toMatch(
      /answered after [\d.]+ s \((?:[\d.]+ s|n\/a) of CPU\); next block sealed after [\d.]+ s/,
    );
    expect(restart.stdout).toMatch(/by the next block: [\d,]+ trie nodes made from [\d,]+ leaves/);
    // The copy is gone, the kept directory stays as it was.
    expect(fs.readdirSync(path.dirname(dir as string)).some((d) => d.startsWith('wharf-restart-'))).toBe(
      false,
    );
    expect(fs.existsSync(path.join(dir as string, 'chain'))).toBe(true);
  } finally {
    fs.rmSync(dir as string, { recursive: true, force: true });
  }
}, 120_000);
