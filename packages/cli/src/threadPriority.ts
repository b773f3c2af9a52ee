/**
 * Scheduling of the wharf process's own threads. The chain node's deadlines (a flashblock every
 * 200 ms) are met on the main thread; V8's GC and compiler workers, libuv's thread pool and
 * LevelDB's compaction thread run beside it. On 2 cores the main thread of a late flashblock was
 * runnable but waiting for a CPU behind them. Its helpers now run at a lower priority (nice +10
 * over the main thread; +5 was not enough): they still get every idle cycle, but a main thread
 * that wakes up takes the CPU first (docs/decisions/0011-helper-threads-at-nice-10.md).
 *
 * Linux only (threads are listed in /proc); elsewhere nothing happens. Lowering a priority needs
 * no privilege. Threads started later (a worker) keep the priority of the thread that starts them.
 */
import fs from 'node:fs';
import os from 'node:os';

/** How much lower than the main thread the helpers run (nice values, higher is lower). */
export const HELPER_NICE = 10;

/**
 * Sets every thread of this process but the main one and `keep` (threads a deadline waits for:
 * ChainNode.deadlineThreadIds) to the main thread's nice + `by`; returns how many.
 */
export function lowerHelperThreads(
  by = HELPER_NICE,
  taskDir = '/proc/self/task',
  mainTid = process.pid,
  keep: readonly number[] = [],
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
    if (tid === mainTid || keep.includes(tid)) continue;
    try {
      os.setPriority(tid, nice);
      n++;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return n;
}
