import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tuneCompiler } from '../src/compilerTuning.js';
import { bin } from './run-cli.js';

describe('tuneCompiler', () => {
  it('leaves an --interrupt-budget given on the command line or in NODE_OPTIONS alone', () => {
    expect(tuneCompiler(['--interrupt-budget=1000'], '')).toBe(false);
    expect(tuneCompiler(['--interrupt_budget', '1000'], '')).toBe(false);
    expect(tuneCompiler([], '--max-old-space-size=512 --interrupt-budget=1000')).toBe(false);
  });

  it('sets its own otherwise, next to unrelated node flags (a budget of another kind included)', () => {
    expect(tuneCompiler(['--enable-source-maps'], '--interrupt-budget-for-feedback-allocation=940')).toBe(
      true,
    );
  });
});

/**
 * In a fresh node (the dist build, as run-cli.ts runs it) given `nodeFlags`: how many calls of a
 * small hot function run before TurboFan has optimized it, after the CLI's tuning when `tune`.
 * Compiling on the main thread makes the count exact.
 */
function callsBeforeOptimized(nodeFlags: string[], tune: boolean): number {
  const script = `
    import { tuneCompiler } from ${JSON.stringify(pathToFileURL(path.join(path.dirname(bin), 'compilerTuning.js')).href)};
    if (${tune}) tuneCompiler(process.execArgv, '');
    function f(x) { let s = 0; for (let i = 0; i < 10; i++) s += (x * i) % 7; return s; }
    let n = 0;
    for (; n < 1e6; n++) { f(n); if (%GetOptimizationStatus(f) & 16) break; }
    console.log(n);
  `;
  const r = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      '--no-concurrent-recompilation',
      ...nodeFlags,
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return Number(r.stdout);
}

describe('TurboFan with the CLI tuning', () => {
  it('takes a hot function up after ~8x the calls it does by default', () => {
    const before = callsBeforeOptimized([], false);
    const after = callsBeforeOptimized([], true);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(1e6);
    expect(after).toBeGreaterThan(5 * before);
    expect(after).toBeLessThan(1e6);
  });

  it('keeps the budget node was given', () => {
    const given = callsBeforeOptimized(['--interrupt-budget=67584'], true);
    expect(given).toBe(callsBeforeOptimized([], false));
  });
});
