import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { HELPER_NICE, lowerHelperThreads } from '../src/threadPriority.js';

const linux = fs.existsSync('/proc/self/task');

describe('lowerHelperThreads', () => {
  it.runIf(linux)("runs every thread but the main one at the main thread's nice + HELPER_NICE", async () => {
    // A worker: one more thread, started before the call.
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((r) => worker.once('online', r));
    try {
      const main = os.getPriority(process.pid);
      const n = lowerHelperThreads();
      const tids = fs.readdirSync('/proc/self/task').map(Number);
      expect(n).toBeGreaterThanOrEqual(tids.length - 2); // a thread may end meanwhile
      expect(os.getPriority(process.pid)).toBe(main);
      for (const tid of tids)
        if (tid !== process.pid)
          expect(os.getPriority(tid), `thread ${tid}`).toBe(Math.min(19, main + HELPER_NICE));
      // Called again, nothing sinks further.
      lowerHelperThreads();
      for (const tid of tids)
        if (tid !== process.pid) expect(os.getPriority(tid)).toBe(Math.min(19, main + HELPER_NICE));
    } finally {
      await worker.terminate();
    }
  });

  it.runIf(linux)(
    "leaves the threads a deadline waits for (ChainNode.deadlineThreadIds) at the main thread's nice",
    async () => {
      // Two workers, each telling its kernel thread id, as the journal's writer does.
      const src = `const { parentPort } = require('node:worker_threads');
      parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
      setInterval(() => {}, 1000);`;
      const workers = [new Worker(src, { eval: true }), new Worker(src, { eval: true })];
      try {
        const [kept, lowered] = await Promise.all(
          workers.map((w) => new Promise<number>((r) => w.once('message', r))),
        );
        const main = os.getPriority(process.pid);
        lowerHelperThreads(HELPER_NICE, undefined, undefined, [kept]);
        expect(os.getPriority(kept)).toBe(main);
        expect(os.getPriority(lowered)).toBe(Math.min(19, main + HELPER_NICE));
      } finally {
        await Promise.all(workers.map((w) => w.terminate()));
      }
    },
  );

  it('does nothing where threads cannot be listed', () => {
    expect(lowerHelperThreads(HELPER_NICE, '/nonexistent/task')).toBe(0);
  });
});
