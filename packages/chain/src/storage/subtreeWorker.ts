/**
 * The subtree worker (decision 0680): makes the disk layer's nodes from their leaves off the
 * event loop. One thread, started by subtreeMaker.ts at the first node made. A message names
 * the files of the runs its jobs read that were not named before; a run is opened when a job
 * first reads it, and read with blocking `pread`s (here a read waits for nothing else). A job's
 * runs are held by the node until the answer is back; the node says when a run is gone for good
 * (`drop`), and its file is closed here. Jobs come and answers go back packed in one buffer each
 * way (subtreeMake.ts `packJobs`, `pack`), moved, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { initKeccak } from '../crypto/keccak.js';
import { LeafRun } from './leafRun.js';
import { type MadeSubtree, makeSubtree, pack, unpackJobs } from './subtreeMake.js';

/**
 * `make`: the jobs packed (subtreeMake.ts `packJobs`), and the files of the runs they name that
 * the worker has not been told of before (a run's id stays its file until it is dropped).
 */
export type ToSubtreeWorker =
  | { t: 'make'; seq: number; files: [id: number, file: string][]; jobs: Uint8Array }
  | { t: 'drop'; id: number };
export type FromSubtreeWorker = { seq: number; packed: Uint8Array } | { seq: number; error: string };

const files = new Map<number, string>();
const open = new Map<number, LeafRun>();

async function runOf(id: number): Promise<LeafRun> {
  let run = open.get(id);
  if (!run) {
    const file = files.get(id);
    if (!file) throw new Error(`leaf run ${id}: its file was never named`);
    run = await LeafRun.openFile(file, true);
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
        files.delete(m.id);
        await run?.close().catch(() => {});
        return;
      }
      for (const [id, file] of m.files) files.set(id, file);
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
