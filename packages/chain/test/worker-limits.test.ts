import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { workerLimits } from '../src/workerLimits.js';

/**
 * In a fresh node run as the CLI's process runs once started (`--semi-space-growth-factor=16`,
 * decision 0530): the young generation of a worker given `limits`, in MB, at its start and after
 * a burst of allocations of which much survives a scavenge or two (as a front thread's burst of
 * requests, or a flush's buffers, can).
 */
function workerYoungGeneration(limits: object = {}): { start: number; after: number } {
  const script = `
    const { Worker } = require('node:worker_threads');
    const source = \`
      const v8 = require('node:v8');
      const { parentPort } = require('node:worker_threads');
      const young = () => v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space').space_size / 2 ** 20;
      const start = young();
      let keep = [];
      for (let i = 0; i < 3000; i++) { keep.push(new Array(5000).fill(i)); if (keep.length > 400) keep.shift(); }
      parentPort.postMessage({ start, after: young() });
    \`;
    const w = new Worker(source, { eval: true, resourceLimits: ${JSON.stringify(limits)} });
    w.once('message', (m) => { console.log(JSON.stringify(m)); w.terminate(); });
  `;
  const r = spawnSync(process.execPath, ['--semi-space-growth-factor=16', '-e', script], {
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe("the node's worker threads", () => {
  it('keep their young generation at its starting size through a burst that grows an unlimited one to its maximum', () => {
    const unlimited = workerYoungGeneration();
    // The step the 20-minute run saw in one worker: 1 MB semi-spaces straight to 16 MB.
    expect(unlimited.after).toBeGreaterThanOrEqual(8 * unlimited.start);
    const limited = workerYoungGeneration(workerLimits());
    expect(limited.after).toBe(limited.start);
  });

  it("keep a worker's own limits beside it", () => {
    expect(workerLimits({ maxOldGenerationSizeMb: 32 })).toEqual({
      maxYoungGenerationSizeMb: 3,
      maxOldGenerationSizeMb: 32,
    });
  });
});
