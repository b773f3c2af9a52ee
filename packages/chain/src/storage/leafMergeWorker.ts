/**
 * The leaf-merge worker (decision 0670): one thread per merge, started by leafRuns.ts. It opens
 * the runs to merge by their files, writes the merged run to `out` (synced, its folder synced)
 * and answers `{ size }` or `{ error }`; the node opens the new run once it has answered. A merge
 * of the largest runs reads and writes hundreds of MB: here it takes none of the event loop's time.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { mergeRuns } from './leafMerge.js';
import { LeafRun, RunWriter } from './leafRun.js';

export interface MergeJob {
  /** The runs' files, oldest first. */
  inputs: string[];
  out: string;
  whole: boolean;
}

async function main(job: MergeJob): Promise<{ size?: number; error?: string }> {
  const runs: LeafRun[] = [];
  let w: RunWriter | undefined;
  try {
    for (const file of job.inputs) runs.push(await LeafRun.openFile(file));
    w = await RunWriter.create(job.out);
    const merged = await mergeRuns(runs, w, job.whole);
    w = undefined;
    await merged.close();
    return { size: merged.size };
  } catch (e) {
    await w?.abandon();
    return { error: (e as Error).message };
  } finally {
    for (const r of runs) await r.close().catch(() => {});
  }
}

/**
 * The lowest CPU priority for this thread (Linux: a thread's own nice value): on two cores a
 * merge must not take the event loop's core when both are busy. Elsewhere the call would set the
 * whole process's, so it is not made.
 */
function yieldTheCpu(): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()), 19);
  } catch {
    // Not allowed or no /proc: the merge runs at the node's priority.
  }
}

yieldTheCpu();
main(workerData as MergeJob).then((answer) => parentPort?.postMessage(answer));
