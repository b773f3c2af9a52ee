/** What a person reads when `wharf up` starts: a title, one line per step, the banner; and the log flags. */
import { afterEach, describe, expect, it } from 'vitest';
import { type Running, startWharf, stopWharf, tempDir, wharf } from './run-cli.js';

let running: Running | undefined;
afterEach(async () => {
  await stopWharf(running);
  running = undefined;
});

/** Resolves once `ok()` holds; fails after `ms` saying what it waited for. */
async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const up = (...flags: string[]) => [
  'up',
  '--port',
  '0',
  '--chain-port',
  '0',
  '--data-dir',
  tempDir(),
  ...flags,
];

describe('the start-up screen of wharf up', () => {
  it('is a title, one pretty line per start-up step, then the banner with the API docs', async () => {
    running = await startWharf(up('--log-format', 'pretty'), /Press Ctrl-C to stop/, 60_000);
    const out = running.stdout();
    expect(out.split('\n')[0]).toMatch(/^wharf \d+\.\d+\.\d+: starting the chain node and the platform/);
    const platform = /Platform\s+(http:\/\/\S+)/.exec(out)![1];
    expect(out).toContain(`API docs    ${platform}/api/docs`);
    // Written before the banner (the logger is flushed first), one line each. stdout and stderr
    // are two pipes: this process may read the banner first, so wait for the last step's line.
    const r = running;
    await waitFor(() => /Server listening at/.test(r.stderr()), 5_000);
    const steps = running.stderr().trimEnd().split('\n');
    for (const line of steps) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] [A-Z]+: /);
    expect(steps.map((l) => l.replace(/^\[[\d:]+\] [A-Z]+: /, '').replace(/ \{.*$/, ''))).toEqual([
      'chain: opened the chain',
      'chain: JSON-RPC listening (HTTP and WebSocket)',
      'platform: opening the notifications store (SQLite)',
      expect.stringMatching(/^platform: Server listening at http:\/\/127\.0\.0\.1:\d+$/),
    ]);
    // The platform starts while the chain builds flashblocks on the same thread; those are not
    // warned about (a unit test in packages/chain covers the rule).
    expect(running.stderr()).not.toMatch(/shown late/);
  }, 90_000);

  it('--log-format json writes one JSON object per line; --log-level warn leaves out the steps', async () => {
    running = await startWharf(up('--log-format', 'json'), /Press Ctrl-C to stop/, 60_000);
    const lines = running.stderr().trimEnd().split('\n');
    const entries = lines.map((l) => JSON.parse(l));
    expect(entries.map((e) => e.msg)).toContain('opened the chain');
    expect(entries.find((e) => e.msg === 'opened the chain')).toMatchObject({
      level: 30,
      part: 'chain',
      chainId: 31337,
    });
    running.child.kill('SIGKILL');
    await running.exited;

    running = await startWharf(
      up('--log-format', 'json', '--log-level', 'warn'),
      /Press Ctrl-C to stop/,
      60_000,
    );
    expect(
      running
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"level":30')),
    ).toEqual([]);
  }, 150_000);

  it('takes WHARF_LOG_LEVEL and WHARF_LOG_FORMAT, and refuses a bad value naming the flag', () => {
    const bad = wharf(['up', '--log-level', 'loud']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(
      /--log-level <level>.*'loud' is invalid.*fatal, error, warn, info, debug, trace, silent/,
    );
    const badEnv = wharf(['up'], { WHARF_LOG_FORMAT: 'xml' });
    expect(badEnv.code).not.toBe(0);
    expect(badEnv.stderr).toMatch(/--log-format <format>.*'xml' from env 'WHARF_LOG_FORMAT' is invalid/);
    const help = wharf(['up', '--help']);
    expect(help.stdout).toMatch(/--log-level <level>[\s\S]*env:\s+WHARF_LOG_LEVEL/);
    expect(help.stdout).toMatch(/--log-format <format>[\s\S]*env:\s+WHARF_LOG_FORMAT/);
  });
});
