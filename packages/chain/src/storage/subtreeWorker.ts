/**
 * The subtree worker (decision 0680): makes the disk layer's nodes from their leaves off the
 * event loop. One thread, started by subtreeMaker.ts at the first node made. It opens a run by
 * its id in the runs' folder (leafRun.ts `runFile`) when a job first reads it, and reads it with
 * blocking `pread`s (here a read waits for nothing else). A job's runs are held by the node until
 * the answer is back; the node says when a run is gone for good (`drop`), and its file is closed
 * here. Jobs come and answers go back packed in one buffer each
 * way (subtreeMake.ts `packJobs`, `pack`), moved, not copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { initKeccak } from '../crypto/keccak.js';
import { LeafRun, runFile } from './leafRun.js';
import { type MadeSubtree, makeSubtree, pack, unpackJobs } from './subtreeMake.js';

/** The runs' folder (leafRuns.ts `dir`). */
export interface SubtreeWorkerData {
  dir: string;
}

/** `make`: the jobs packed (subtreeMake.ts `packJobs`). */
export type ToSubtreeWorker = { t: 'make'; seq: number; jobs: Uint8Array } | { t: 'drop'; id: number };
export type FromSubtreeWorker = { seq: number; packed: Uint8Array } | { seq: number; error: string };

const open = new Map<number, LeafRun>();

async function runOf(id: number): Promise<LeafRun> {
  let run = open.get(id);
  if (!run) {
    run = await LeafRun.openFile(runFile((workerData as SubtreeWorkerData).dir, id), true);
    open.set(id, run);
  }
  return run;
}

async function make(packed: Uint8Array): Promise<Uint8Array> {
  const made: MadeSubtree[] = [];
  for (const job of unpackJobs(packed)) {
    const runs: LeafRun[] = [];
    for (const id of job.runs) runs.push(await runOf(id));
    made.push(await makeSubtree(runs, job.owner, job.path, job.hash, job.keep));
  }
  return pack(made);
}

function serve(port: NonNullable<typeof parentPort>): void {
  // Jobs run one message at a time, in order: a `drop` never overtakes a job that read the run.
  let chain = Promise.resolve();
  port.on('message', (m: ToSubtreeWorker) => {
    chain = chain.then(async () => {
      if (m.t === 'drop') {
        const run = open.get(m.id);
        open.delete(m.id);
        await run?.close().catch(() => {});
        return;
      }
      let answer: FromSubtreeWorker;
      try {
        answer = { seq: m.seq, packed: await make(m.jobs) };
      } catch (e) {
        answer = { seq: m.seq, error: (e as Error).message };
      }
      port.postMessage(answer, 'packed' in answer ? [answer.packed.buffer as ArrayBuffer] : []);
    });
  });
}

if (parentPort) {
  const port = parentPort;
  initKeccak().then(() => serve(port));
}
