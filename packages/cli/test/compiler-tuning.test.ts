import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { budgetDrivesTierUp, tuneCompiler } from '../src/compilerTuning.js';
import { bin } from './run-cli.js';

describe('tuneCompiler', () => {
  it('leaves an --interrupt-budget given on the command line or in NODE_OPTIONS alone', () => {
    expect(tuneCompiler(['--interrupt-budget=1000'], '')).toBe(false);
    expect(tuneCompiler(['--interrupt_budget', '1000'], '')).toBe(false);
    expect(tuneCompiler([], '--max-old-space-size=512 --interrupt-budget=1000')).toBe(false);
  });

  it('leaves a V8 without the flag alone (Node.js 22: 12.4)', () => {
    expect(budgetDrivesTierUp('12.4.254.21-node.33')).toBe(false);
    expect(tuneCompiler([], '', '12.4.254.21-node.33')).toBe(false);
    expect(budgetDrivesTierUp('11.3.244.8-node.30')).toBe(true);
  });

  it.skipIf(!budgetDrivesTierUp())(
    'sets its own otherwise, next to unrelated node flags (a budget of another kind included)',
    () => {
      expect(tuneCompiler(['--enable-source-maps'], '--interrupt-budget-for-feedback-allocation=940')).toBe(
        true,
      );
    },
  );
});

/**
 * In a fresh node (the dist build, as run-cli.ts runs it) given `nodeFlags`: how many calls of a
 * small hot function run before TurboFan has optimized it, after the CLI's tuning when `tune`.
 * Compiling on the main thread makes the count exact.
 */
function callsBeforeOptimized(
  nodeFlags: string[],
  tune: boolean,
  node = process.execPath,
): { calls: number; tuned: boolean } {
  const script = `
    import { tuneCompiler } from ${JSON.stringify(pathToFileURL(path.join(path.dirname(bin), 'compilerTuning.js')).href)};
    const tuned = ${tune} && tuneCompiler(process.execArgv, '');
    function f(x) { let s = 0; for (let i = 0; i < 10; i++) s += (x * i) % 7; return s; }
    let n = 0;
    for (; n < 1e6; n++) { f(n); if (%GetOptimizationStatus(f) & 16) break; }
    console.log(JSON.stringify({ calls: n, tuned }));
  `;
  const r = spawnSync(
    node,
    [
      '--allow-natives-syntax',
      '--no-concurrent-recompilation',
      '--no-maglev',
      ...nodeFlags,
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  // Nothing printed by V8 (an unrecognized flag, a failed import).
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

function versionOf(node: string): string {
  return spawnSync(node, ['-p', 'process.versions.v8'], { encoding: 'utf8' }).stdout.trim();
}

describe.skipIf(!budgetDrivesTierUp())('TurboFan with the CLI tuning (Node.js 20)', () => {
  it('takes a hot function up after ~8x the calls it does by default', () => {
    const before = callsBeforeOptimized([], false);
    const after = callsBeforeOptimized([], true);
    expect(after.tuned).toBe(true);
    expect(before.calls).toBeGreaterThan(0);
    expect(before.calls).toBeLessThan(1e6);
    expect(after.calls).toBeGreaterThan(5 * before.calls);
    expect(after.calls).toBeLessThan(1e6);
  });

  it('keeps the budget node was given', () => {
    const given = callsBeforeOptimized(['--interrupt-budget=67584'], true);
    expect(given.tuned).toBe(false);
    expect(given.calls).toBe(callsBeforeOptimized([], false).calls);
  });
});

// `.ci/run` fetches a Node.js 22 for the fresh-clone test; its V8 tiers up by invocation counts.
const node22 = process.env.WHARF_TEST_NODE22;

describe.skipIf(!node22)('the CLI tuning on Node.js 22', () => {
  it('sets nothing and prints nothing: its V8 has no interrupt budget', () => {
    const node = node22 as string;
    expect(budgetDrivesTierUp(versionOf(node))).toBe(false);
    const tuned = callsBeforeOptimized([], true, node);
    expect(tuned.tuned).toBe(false);
    expect(tuned.calls).toBe(callsBeforeOptimized([], false, node).calls);
  });
});
