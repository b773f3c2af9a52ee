import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tuneCompiler } from '../src/compilerTuning.js';
import { bin } from './run-cli.js';

describe('tuneCompiler', () => {
  it('leaves a choice given on the command line or in NODE_OPTIONS alone', () => {
    expect(tuneCompiler(['--turbo-inlining'], '')).toBe(false);
    expect(tuneCompiler(['--no-turbo_inlining'], '')).toBe(false);
    expect(tuneCompiler([], '--max-old-space-size=512 --turbo-inlining')).toBe(false);
  });

  it('sets its own otherwise, next to unrelated node flags', () => {
    expect(tuneCompiler(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });
});

/**
 * In a fresh node (the dist build, as run-cli.ts runs it) given `nodeFlags`: what TurboFan says
 * while it optimizes a function that calls a small one, after the CLI's tuning when `tune`.
 */
function turboFanTrace(nodeFlags: string[], tune: boolean): string {
  const script = `
    import { tuneCompiler } from ${JSON.stringify(pathToFileURL(path.join(path.dirname(bin), 'compilerTuning.js')).href)};
    if (${tune}) tuneCompiler(process.execArgv, '');
    function add(a, b) { return a + b; }
    function f(x) { return add(x, 1) * 2; }
    %PrepareFunctionForOptimization(f);
    for (let i = 0; i < 2000; i++) f(i);
    %OptimizeFunctionOnNextCall(f);
    f(3);
  `;
  const r = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--trace-turbo-inlining', ...nodeFlags, '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('TurboFan with the CLI tuning', () => {
  it('inlines the small function without it (the trace can see inlining)', () => {
    expect(turboFanTrace([], false)).toMatch(/Inlining .*SharedFunctionInfo add/);
  });

  it('inlines nothing once tuned at run time', () => {
    expect(turboFanTrace([], true)).not.toMatch(/Inlining/);
  });

  it('inlines as node was told when --turbo-inlining was given', () => {
    expect(turboFanTrace(['--turbo-inlining'], true)).toMatch(/Inlining .*SharedFunctionInfo add/);
  });
});
