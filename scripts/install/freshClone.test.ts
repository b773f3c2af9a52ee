/**
 * A new user's first minutes, on a fresh clone: `git clone`, `npm ci`, `npx wharf --help`,
 * `npx wharf project create`, then the root README's "Try it" section run as written, top to
 * bottom. One clone and one `npm ci` (~2 minutes: better-sqlite3 compiles, the root's `prepare`
 * builds) serve every test of this file, so it is a long test with generous timeouts.
 *
 * Two departures from "as written", both on purpose:
 * - `npm start` listens on ports 0 (WHARF_PORT / WHARF_CHAIN_PORT), and the section's URLs are
 *   rewritten to the ports it printed: the README's 8545 and 3000 would collide with other tests
 *   (and other people's servers) on a shared machine.
 * - A `cast` line runs the `cast` `npm ci` installed (Linux x64) when none is on the PATH, and
 *   is skipped, saying so, when there is none at all.
 *
 * With WHARF_TEST_NODE22 (the path of a Node.js 22 binary; `.ci/run` fetches one from npm), the
 * same clone is rebuilt for Node 22 and `wharf up` is smoke-tested on it.
 * WHARF_TEST_SKIP_FRESH_CLONE=1 skips the file (for a quick local `npm test`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const isGitCheckout = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root }).status === 0;
const skip = !isGitCheckout || process.env.WHARF_TEST_SKIP_FRESH_CLONE === '1';
const node22 = process.env.WHARF_TEST_NODE22;

const minutes = (n: number) => n * 60_000;

/** The environment of a fresh shell: nothing from the npm run or the WHARF_* settings of this one. */
function freshEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|WHARF_|INIT_CWD$|VITEST|NODE_OPTIONS$)/.test(k)) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

function run(cmd: string, args: string[], cwd: string, env = freshEnv(), timeout = minutes(5)) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

/** The commands of the README's "Try it" block: comments dropped, `\` continuations joined. */
function tryItCommands(readme: string): string[] {
  const section = /^## Try it\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  const block = /((?:^ {4}.*\n|^\n)+)/m.exec(section)?.[1] ?? '';
  const joined = block
    .split('\n')
    .map((l) => l.replace(/^ {4}/, ''))
    .join('\n')
    .replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

interface Started {
  child: ChildProcess;
  out: () => string;
  stop: () => Promise<number | null>;
}

/** Starts a long-running command in its own process group; resolves once stdout matches `ready`. */
async function startUntil(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<Started> {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + minutes(2);
  while (!ready.test(out)) {
    if (child.exitCode !== null)
      throw new Error(`${cmd} ${args.join(' ')} exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      signalGroup(child, 'SIGKILL');
      throw new Error(`${cmd} ${args.join(' ')} not ready:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    out: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // Ctrl-C in a terminal signals the whole group (npm, the shell, wharf).
        signalGroup(child, 'SIGINT');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      return child.exitCode;
    },
  };
}

/** Signals a child's process group; one that has already gone is fine. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

describe.skipIf(skip)('a fresh clone', () => {
  let tmp: string;
  let clone: string;
  let install: ReturnType<typeof run>;
  const running: Started[] = [];

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-fresh-'));
    clone = path.join(tmp, 'wharf');
    const cloned = run('git', ['clone', '--quiet', root, clone], tmp);
    if (cloned.code !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
    install = run('npm', ['ci', '--no-audit', '--no-fund'], clone, freshEnv(), minutes(20));
  }, minutes(21));

  afterAll(async () => {
    for (const r of running) await r.stop();
    // The clone's node_modules: tens of thousands of files.
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, minutes(5));

  it('npm ci succeeds, builds, and links the wharf command', () => {
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);
    const link = path.join(clone, 'node_modules/.bin/wharf');
    expect(fs.existsSync(link)).toBe(true);
    expect(fs.existsSync(path.join(clone, 'packages/cli/dist/bin.js'))).toBe(true);
  });

  it('npx wharf --help and npx wharf project create work', () => {
    const help = run('npx', ['wharf', '--help'], clone);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: wharf /);
    for (const command of ['up', 'chain', 'serve', 'project', 'app', 'key'])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));

    const dataDir = path.join(tmp, 'operator');
    const created = run(
      'npx',
      [
        'wharf',
        'project',
        'create',
        '--name',
        'first',
        '--app-url',
        'https://first.example',
        '--data-dir',
        dataDir,
      ],
      clone,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      projectId: expect.any(String),
      apiKey: expect.stringMatching(/^wharf_/),
      appUrls: ['https://first.example'],
    });
  });

  it(
    "runs the README's Try it section as written, top to bottom",
    async () => {
      const commands = tryItCommands(fs.readFileSync(path.join(clone, 'README.md'), 'utf8'));
      // The first line is the install (done above) and the start, which runs in its own terminal.
      expect(commands[0]).toBe('npm ci && npm start');
      const platform = await startUntil(
        'npm',
        ['start'],
        clone,
        freshEnv({ WHARF_PORT: '0', WHARF_CHAIN_PORT: '0' }),
        /Press Ctrl-C to stop/,
      );
      running.push(platform);
      const platformUrl = new URL(/Platform\s+(http:\/\/\S+)/.exec(platform.out())![1]);
      const chainUrl = new URL(/Chain RPC\s+(http:\/\/\S+)/.exec(platform.out())![1]);

      // Foundry's cast: on the PATH, or the one `npm ci` installs on Linux x64 (an optional
      // dependency of @wharf/chain) in node_modules/.bin.
      const castOnPath = run('bash', ['-c', 'command -v cast'], clone).code === 0;
      const localBin = path.join(clone, 'node_modules/.bin');
      const hasCast = castOnPath || fs.existsSync(path.join(localBin, 'cast'));
      const steps = commands.slice(1).map((command) => {
        const program = command.replace(/^npx\s+/, '').split(/\s+/)[0];
        const rewritten = command
          .replace(/(127\.0\.0\.1|localhost):3000\b/g, platformUrl.host)
          .replace(/(127\.0\.0\.1|localhost):8545\b/g, chainUrl.host);
        if (program === 'cast' && !hasCast) {
          console.warn(`fresh clone: skipped "${command}": Foundry's cast is not installed here`);
          return { command, script: 'echo skipped' };
        }
        if (program === 'cast' && !castOnPath)
          return { command, script: `(PATH="${localBin}:$PATH"; ${rewritten})` };
        return { command, script: rewritten };
      });
      // A marker on its own line before each step (a step's output may not end with a newline).
      const marked = steps.flatMap((s, i) => [`printf '\\n@@step ${i}\\n'`, s.script]);
      const r = run('bash', ['-c', ['set -euo pipefail', ...marked].join('\n')], clone);
      const outputs = r.stdout.split(/\n@@step \d+\n/).slice(1);
      expect(r.code, `failed at: ${steps[outputs.length - 1]?.command}\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(outputs).toHaveLength(steps.length);

      // What each step printed is what the README says it shows.
      for (const [i, { command, script: ran }] of steps.entries()) {
        const out = outputs[i]!;
        if (ran === 'echo skipped') continue;
        if (command.startsWith('npx wharf project create')) expect(out).toMatch(/"apiKey": "wharf_/);
        if (command.startsWith('curl') && command.includes('/app/users'))
          expect(JSON.parse(out)).toEqual({ success: true, users: [] });
        if (command.startsWith('cast balance')) expect(out.trim()).toBe('10000000000000000000000');
      }
      expect(steps.some((s) => s.command.startsWith('curl'))).toBe(true);
      await platform.stop();
      expect(platform.out()).toMatch(/stopped cleanly/);
    },
    minutes(5),
  );

  it.skipIf(!node22)(
    'runs on Node.js 22: wharf up serves the platform and the chain',
    async () => {
      const bin = path.dirname(node22!);
      // The native module that is not N-API (better-sqlite3) is rebuilt for Node 22, from the
      // headers that ship beside its binary (no download).
      const env = freshEnv({ PATH: `${bin}:${process.env.PATH}`, npm_config_nodedir: path.dirname(bin) });
      const version = run(node22!, ['--version'], clone, env);
      expect(version.stdout).toMatch(/^v22\./);
      const rebuilt = run('npm', ['rebuild', 'better-sqlite3'], clone, env, minutes(15));
      expect(rebuilt.code, `${rebuilt.stdout}\n${rebuilt.stderr}`).toBe(0);

      const dataDir = path.join(tmp, 'node22');
      const up = await startUntil(
        path.join(clone, 'packages/cli/bin/wharf'),
        ['up', '--port', '0', '--chain-port', '0', '--data-dir', dataDir],
        clone,
        env,
        /Press Ctrl-C to stop/,
      );
      running.push(up);
      const platformUrl = /Platform\s+(http:\/\/\S+)/.exec(up.out())![1];
      const chainUrl = /Chain RPC\s+(http:\/\/\S+)/.exec(up.out())![1];
      expect(await (await fetch(`${platformUrl}/healthz`)).json()).toEqual({ ok: true });
      const rpc = await fetch(chainUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
      const created = run(
        path.join(clone, 'packages/cli/bin/wharf'),
        [
          'project',
          'create',
          '--name',
          'n22',
          '--app-url',
          'https://n22.example',
          '--whitelisted',
          '--data-dir',
          dataDir,
        ],
        clone,
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const users = await fetch(`${platformUrl}/api/v1/notifications/app/users?app_url=https://n22.example`, {
        headers: { 'x-api-key': JSON.parse(created.stdout).apiKey },
      });
      expect(await users.json()).toEqual({ success: true, users: [] });
      expect(await up.stop()).toBe(0);
      expect(up.out()).toMatch(/stopped cleanly/);
    },
    minutes(20),
  );
});
