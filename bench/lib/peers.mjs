/**
 * Starts the nodes a benchmark compares, each on its own 127.0.0.1 port, and stops them.
 * wharf runs from the built CLI (npm run build), Anvil from @foundry-rs/anvil-linux-amd64,
 * Hardhat 2 from its npm package with a throwaway config. Both peers are optional dependencies
 * of the bench (Anvil's binary is Linux x64 only): a peer that is not installed is left out.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '../..');

/** The package each peer runs from; wharf itself is always there. */
const peerPackages = { anvil: '@foundry-rs/anvil-linux-amd64/package.json', hardhat: 'hardhat/package.json' };

/** The requested peers that are installed; says on stderr which ones are left out and why. */
export function installedPeers(requested) {
  return requested.filter((peer) => {
    if (!peerPackages[peer]) return true;
    try {
      require.resolve(peerPackages[peer]);
      return true;
    } catch {
      const pkg = peerPackages[peer].replace(/\/package\.json$/, '');
      process.stderr.write(
        `bench: skipping ${peer}: ${pkg} is not installed (an optional dependency; Anvil's is Linux x64 only)\n`,
      );
      return false;
    }
  });
}

/** A TCP port free on 127.0.0.1 right now (the kernel's pick), for a node the bench starts. */
export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

export const MNEMONIC = 'test test test test test test test test test test test junk';

async function waitForRpc(url, child, name, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not answer on ${url} within ${timeoutMs} ms`);
}

/** `scratch`: folders of the node's own (data, config), removed once it has stopped. */
function launch(name, cmd, args, url, opts = {}, scratch = []) {
  // WHARF_BENCH_STDOUT=FILE: keep the node's stdout (e.g. --trace-gc through WHARF_BENCH_NODE_ARGS).
  const out = process.env.WHARF_BENCH_STDOUT ? fs.openSync(process.env.WHARF_BENCH_STDOUT, 'w') : 'ignore';
  const child = spawn(cmd, args, { stdio: ['ignore', out, 'pipe'], ...opts });
  let err = '';
  child.stderr.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  // WHARF_BENCH_STDERR=FILE: keep the node's whole stderr (logs) for a look after the run.
  if (process.env.WHARF_BENCH_STDERR) child.stderr.pipe(fs.createWriteStream(process.env.WHARF_BENCH_STDERR));
  return {
    name,
    url,
    child,
    async ready() {
      try {
        await waitForRpc(url, child, name);
      } catch (e) {
        throw new Error(`${e.message}\n${err}`);
      }
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 5000);
          child.on('exit', () => {
            clearTimeout(t);
            r();
          });
        });
      }
      for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The variables packages/cli/bin/malloc.sh may set. */
const MALLOC_VARS = ['LD_PRELOAD', 'MALLOC_CONF', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'];

/**
 * The allocator settings bin/wharf gives node before it execs it (packages/cli/bin/malloc.sh:
 * jemalloc when the system has it, glibc's settings; docs/decisions/0560, 0570, 0600), got by
 * sourcing that script in `env`, so that the bench's node, started on dist/bin.js, runs as a
 * user's does. A value in `env` wins, as it does in the script.
 */
export function binMallocSettings(env = process.env) {
  const script = path.join(root, 'packages/cli/bin/malloc.sh');
  const print = MALLOC_VARS.map((name) => `printf '%s\\n' "\${${name}-}"`).join('; ');
  const r = spawnSync('sh', ['-c', `. "$0" && ${print}`, script], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sourcing ${script} failed: ${r.stderr}`);
  const values = r.stdout.split('\n');
  return Object.fromEntries(MALLOC_VARS.map((name, i) => [name, values[i]]).filter(([, v]) => v));
}

/**
 * blockTime in seconds; 0 = automine. `dataDir`: the folder to make the node's data dir in
 * (default the OS temp folder; /dev/shm takes the disk out of a measurement); `reuse`: a data
 * dir to start on instead, kept at stop.
 */
export function wharfNode({ port, blockTime = 2, extra = [], dataDir: under = os.tmpdir(), reuse }) {
  // `reuse`: an existing data directory (a kept one, bench/restart.mjs), left in place at stop.
  const dataDir = reuse ?? fs.mkdtempSync(path.join(under, 'wharf-bench-'));
  const bin = path.join(root, 'packages/cli/dist/bin.js');
  const node = launch(
    'wharf',
    process.execPath,
    [
      // WHARF_BENCH_PROF=DIR: a V8 CPU profile of the node under test, written on exit.
      ...(process.env.WHARF_BENCH_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WHARF_BENCH_PROF}`]
        : []),
      // WHARF_BENCH_NODE_ARGS: more Node.js flags for it (e.g. --max-old-space-size=256).
      ...(process.env.WHARF_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      bin,
      'chain',
      'start',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--block-time',
      String(blockTime),
      ...extra,
    ],
    `http://127.0.0.1:${port}`,
    // node on dist/bin.js (so WHARF_BENCH_NODE_ARGS can pass node flags), with the allocator
    // settings the committed bin/wharf gives a user's node.
    { env: { ...process.env, ...binMallocSettings(), WHARF_LOG_LEVEL: 'warn' } },
    reuse ? [] : [dataDir],
  );
  // The data directory, for a bench that reads what the node wrote there (its LevelDB LOGs).
  node.dataDir = dataDir;
  return node;
}

export function anvilNode({ port, blockTime = 2, extra = [] }) {
  const dir = path.dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json'));
  const args = ['--port', String(port), '--host', '127.0.0.1', '--silent', '--mnemonic', MNEMONIC, ...extra];
  if (blockTime > 0) args.push('--block-time', String(blockTime));
  return launch('anvil', path.join(dir, 'bin/anvil'), args, `http://127.0.0.1:${port}`);
}

export function hardhatNode({ port, blockTime = 2 }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hardhat-bench-'));
  const mining = blockTime > 0 ? `mining: { auto: false, interval: ${blockTime * 1000} },` : '';
  fs.writeFileSync(
    path.join(dir, 'hardhat.config.cjs'),
    `module.exports = { networks: { hardhat: { chainId: 31337, ${mining} accounts: { mnemonic: '${MNEMONIC}' } } } };\n`,
  );
  const cli = require.resolve('hardhat/internal/cli/cli.js');
  return launch(
    'hardhat',
    process.execPath,
    [
      cli,
      '--config',
      path.join(dir, 'hardhat.config.cjs'),
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    `http://127.0.0.1:${port}`,
    // cwd inside the workspace: Hardhat refuses to run from a folder that cannot resolve it locally.
    { cwd: path.join(root, 'bench'), env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' } },
    [dir],
  );
}
