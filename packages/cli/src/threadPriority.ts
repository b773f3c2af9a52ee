/**
 * Scheduling of the wharf process's own threads. The chain node's deadlines (a flashblock every
 * 200 ms) are met on the main thread; V8's GC and compiler workers, libuv's thread pool and
 * LevelDB's compaction thread run beside it. On 2 cores, tracing late flashblocks showed the main
 * thread runnable but waiting for a CPU for 10-25 ms of a 30-40 ms build. Its helpers now run at
 * a lower priority (nice +10 over the main thread): they still get every idle cycle, but a main
 * thread that wakes up takes the CPU first.
 *
 *   bench/preconf.mjs, 30 s at 1,000 transfers/s: flashblock deviation p99 per run
 *   as before           25.7, 3.6, 21.7, 10.8, 8.9, 20.6, 21.6 ms (4 of 7 over 20 ms)
 *   helpers at nice +5  7.6, 8.5, 24.0, 23.6 ms (2 of 4 over)
 *   helpers at nice +10 15.5, 15.1, 10.0, 16.3, 2.6, 3.9, 9.4, 10.0, 69.1 ms (1 of 9 over)
 *   main at nice -10    5.3, 11.5, 14.5, 8.0 ms (needs privileges: not done)
 *
 * Linux only (threads are listed in /proc); elsewhere nothing happens. Lowering a priority needs
 * no privilege. Threads started later (a worker) keep the priority of the thread that starts them.
 */
import fs from 'node:fs';
import os from 'node:os';

/** How much lower than the main thread the helpers run (nice values, higher is lower). */
export const HELPER_NICE = 10;

/** Sets every thread of this process but the main one to the main thread's nice + `by`; returns how many. */
export function lowerHelperThreads(
  by = HELPER_NICE,
  taskDir = '/proc/self/task',
  mainTid = process.pid,
): number {
  let tids: string[];
  try {
    tids = fs.readdirSync(taskDir);
  } catch {
    return 0; // not Linux
  }
  const nice = Math.min(19, os.getPriority(mainTid) + by);
  let n = 0;
  for (const t of tids) {
    const tid = Number(t);
    if (tid === mainTid) continue;
    try {
      os.setPriority(tid, nice);
      n++;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return n;
}
