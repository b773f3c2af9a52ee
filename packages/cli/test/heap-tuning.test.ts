import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tuneHeap } from '../src/heapTuning.js';
import { bin } from './run-cli.js';

describe('tuneHeap', () => {
  it('leaves a --heap-growing-percent given on the command line alone', () => {
    expect(tuneHeap(['--heap-growing-percent=30'], '')).toBe(false);
    expect(tuneHeap(['--heap_growing_percent', '30'], '')).toBe(false);
  });

  it('leaves one given in NODE_OPTIONS alone', () => {
    expect(tuneHeap([], '--max-old-space-size=512 --heap-growing-percent=50')).toBe(false);
  });

  it('sets its own otherwise, next to unrelated node flags', () => {
    expect(tuneHeap(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });
});

/**
 * In a fresh node (the dist build, as run-cli.ts runs it), given `nodeFlags`: the young
 * generation's size in MB at start, after allocating as a node's start does while held, and after
 * the same once released.
 */
function youngGenerationSizes(nodeFlags: string[]): {
  start: number;
  held: number;
  burst: number;
  released: number;
} {
  const script = `
    import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
    import { holdYoungGeneration } from ${JSON.stringify(pathToFileURL(path.join(path.dirname(bin), 'heapTuning.js')).href)};
    const young = () => v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space').space_size / 2 ** 20;
    // Much of it survives a scavenge or two (~16 MB live at a time), as what a node's start keeps.
    const allocate = (n = 3000) => { let keep = []; for (let i = 0; i < n; i++) { keep.push(new Array(5000).fill(i)); if (keep.length > 400) keep.shift(); } };
    const start = young();
    const release = holdYoungGeneration(process.execArgv, '');
    allocate();
    const held = young();
    release();
    allocate(150); // a first burst: one growth
    const burst = young();
    allocate();
    console.log(JSON.stringify({ start, held, burst, released: young() }));
  `;
  const r = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe('holdYoungGeneration', () => {
  it('keeps the young generation small until released, then lets it grow to its usual size', () => {
    const { start, held, released } = youngGenerationSizes([]);
    // V8's first step (1 -> 2 MB) at most; unheld, the same allocations take it to 32 MB.
    expect(held).toBeLessThanOrEqual(2 * start);
    expect(released).toBeGreaterThanOrEqual(8 * held);
  });

  it('lets it grow to its maximum at the first growth once released (a first burst of load)', () => {
    const { held, burst, released } = youngGenerationSizes([]);
    // With V8's default factor the first burst took it 2 -> 8 MB, and later doublings to 32.
    expect(burst).toBeGreaterThanOrEqual(8 * held);
    expect(burst).toBe(released);
  });

  it('holds nothing when node was given its own --semi-space-growth-factor', () => {
    const { start, held } = youngGenerationSizes(['--semi-space-growth-factor=4']);
    expect(held).toBeGreaterThan(2 * start);
  });
});
