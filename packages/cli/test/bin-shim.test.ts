/**
 * The committed bin (`bin/wharf`, what `npx wharf` and `npm start` run): a shell script that
 * preloads the system's jemalloc where there is one, sets glibc's MALLOC_ARENA_MAX and
 * MALLOC_MMAP_THRESHOLD_, and execs node on dist/bin.js (bin/malloc.sh; docs/decisions/0560,
 * 0570, 0600).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Running, shim, startWharf, stopWharf, tempDir } from './run-cli.js';

const linux = process.platform === 'linux';
let running: Running | undefined;

afterEach(async () => {
  await stopWharf(running, 'SIGTERM');
  running = undefined;
});

/** The environment of a live process, by /proc (Linux). */
function environOf(pid: number): Map<string, string> {
  const pairs = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

async function startChain(env: NodeJS.ProcessEnv): Promise<Running> {
  running = await startWharf(
    ['chain', 'start', '--port', '0', '--data-dir', tempDir()],
    /Chain RPC\s+http:\/\/\S+/,
    20_000,
    env,
    true,
  );
  return running;
}

describe('bin/wharf', () => {
  it('runs the CLI through a relative symlink, as npm links it in node_modules/.bin', () => {
    const dir = tempDir();
    fs.symlinkSync(path.relative(dir, shim), path.join(dir, 'wharf'));
    const r = spawnSync(path.join(dir, 'wharf'), ['--version'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('says to build when dist/ is missing, and exits 1', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync(shim, path.join(dir, 'bin', 'wharf'));
    const r = spawnSync('sh', [path.join(dir, 'bin', 'wharf'), '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the CLI is not built yet .*run `npm run build`/);
  });

  it('refuses an allocator it does not know, naming it, before node starts', () => {
    const r = spawnSync(shim, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, WHARF_MALLOC: 'jemaloc' },
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("WHARF_MALLOC must be jemalloc or system, not 'jemaloc'");
  });

  it.runIf(linux)(
    'is the node process itself, started with 2 malloc arenas and a fixed mmap threshold',
    async () => {
      const { child } = await startChain({ MALLOC_ARENA_MAX: undefined, MALLOC_MMAP_THRESHOLD_: undefined });
      const pid = child.pid!;
      // exec: the pid a supervisor (or kill -9) holds is node's, not a shell's.
      expect(fs.readlinkSync(`/proc/${pid}/exe`)).toMatch(/node/);
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('dist/bin.js');
      expect(environOf(pid).get('MALLOC_ARENA_MAX')).toBe('2');
      expect(environOf(pid).get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
      child.kill('SIGTERM');
      expect(await running!.exited).toBe(0);
    },
  );

  it.runIf(linux)('leaves malloc settings already in the environment alone', async () => {
    const { child } = await startChain({ MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(environOf(child.pid!).get('MALLOC_ARENA_MAX')).toBe('4');
    expect(environOf(child.pid!).get('MALLOC_MMAP_THRESHOLD_')).toBe('65536');
  });

  it.runIf(linux)("runs on the system's jemalloc where there is one, and on glibc's when told", async () => {
    const { child } = await startChain({
      LD_PRELOAD: undefined,
      MALLOC_CONF: undefined,
      WHARF_MALLOC: undefined,
    });
    const maps = fs.readFileSync(`/proc/${child.pid!}/maps`, 'utf8');
    const preload = environOf(child.pid!).get('LD_PRELOAD');
    // Where bin/malloc.sh looks, in its order.
    const triplet = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`;
    const jemalloc = [
      `/usr/lib/${triplet}/libjemalloc.so.2`,
      '/usr/lib64/libjemalloc.so.2',
      '/usr/lib/libjemalloc.so.2',
      '/usr/local/lib/libjemalloc.so.2',
    ].find((f) => fs.existsSync(f));
    expect(preload).toBe(jemalloc);
    if (jemalloc) {
      expect(maps).toContain(jemalloc);
      expect(environOf(child.pid!).get('MALLOC_CONF')).toBe(
        'background_thread:true,dirty_decay_ms:5000,muzzy_decay_ms:0',
      );
    } else {
      expect(maps).not.toMatch(/libjemalloc/);
    }
    await stopWharf(running, 'SIGTERM');
    const system = await startChain({
      LD_PRELOAD: undefined,
      MALLOC_CONF: undefined,
      WHARF_MALLOC: 'system',
    });
    expect(fs.readFileSync(`/proc/${system.child.pid!}/maps`, 'utf8')).not.toMatch(/libjemalloc/);
    expect(environOf(system.child.pid!).get('MALLOC_ARENA_MAX')).toBe('2');
  });
});
