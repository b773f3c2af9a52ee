/**
 * The CLI warms the transfer path up at start unless told not to (decision 0550): its debug line
 * is in the log of `wharf chain start`, and not with `--no-warm-up` or WHARF_NO_WARM_UP.
 */
import { afterEach, expect, it } from 'vitest';
import { type Running, startWharf } from './run-cli.js';

let running: Running | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
  running = undefined;
});

it.each([
  ['chain start', [], {}, true],
  ['chain start --no-warm-up', ['--no-warm-up'], {}, false],
  ['chain start with WHARF_NO_WARM_UP=1', [], { WHARF_NO_WARM_UP: '1' }, false],
])('%s', async (_name, flags, env, warmed) => {
  running = await startWharf(
    [
      ...['chain', 'start', '--port', '0', '--block-time', '0', '--ephemeral'],
      ...['--log-level', 'debug', '--log-format', 'json', ...flags],
    ],
    /Chain RPC\s+http:\/\/\S+/,
    30_000,
    env,
  );
  const r = running;
  // stdout and stderr are two pipes: wait for the log line written after the warm-up's.
  const until = Date.now() + 5_000;
  while (!r.stderr().includes('JSON-RPC listening') && Date.now() < until)
    await new Promise((done) => setTimeout(done, 20));
  const messages = r
    .stderr()
    .trimEnd()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l).msg);
  expect(messages).toContain('JSON-RPC listening (HTTP and WebSocket)');
  expect(messages.includes('warmed up the transfer path')).toBe(warmed);
  // And it serves: the chain is its own, at block 0.
  const url = /Chain RPC\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(r.stdout())![1];
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  expect(((await res.json()) as { result: string }).result).toBe('0x0');
}, 60_000);
