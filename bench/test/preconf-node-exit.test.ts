/**
 * bench/preconf.mjs when the node under test dies mid-run (out of memory, a crash, a probe that
 * killed it): it says so and exits 1, instead of its sender waiting for answers for the rest of
 * an hour. Runs the bench as a user does, on the built CLI (dist/, built by `npm run typecheck`).
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../lib/peers.mjs';

const bench = path.resolve(import.meta.dirname, '../preconf.mjs');

/** The pid of the node the bench started on `port` (its command line names the port). */
function nodePid(port: number): number | undefined {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  const line = ps.split('\n').find((l) => l.includes('chain start') && l.includes(`--port ${port} `));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

it('stops with a message naming the signal when the node under test is killed', async () => {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [bench, '--rate', '50', '--seconds', '120', '--senders', '5', '--idle', '0', '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 50_000;
    while (!stderr.includes('offering') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toContain('offering');
    const pid = nodePid(port);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, 'SIGKILL');
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('still running'), 15_000)),
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the node under test exited during the run \(SIGKILL\): no figures/);
  } finally {
    child.kill('SIGKILL');
  }
}, 90_000);
