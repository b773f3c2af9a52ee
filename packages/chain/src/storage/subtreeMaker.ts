/**
 * Makes the disk layer's nodes from their leaves (decision 0650) in the subtree worker
 * (subtreeWorker.ts, decision 0680), so that a make's reads, its merge of the runs' answers, and
 * its ~20-60 keccaks take none of the event loop's time: by minute 9 of 1,000 transfers/s that
 * was ~9% of the main thread, two thirds of it the reads' trips through libuv's thread pool.
 *
 * The nodes asked while the current callbacks run go in one message (a flashblock's prefetch
 * asks hundreds at once). Each make holds the runs it reads (leafRuns.ts `hold`) from the moment
 * it is asked until its answer is back, so it reads the runs live when it was asked, and no file
 * is deleted under it.
 *
 * Without a worker (runs in memory for `--ephemeral`, a package run from source without its
 * build) and after a worker failed, nodes are made here, on the event loop.
 */
import { Worker } from 'node:worker_threads';
import { builtScript } from '../builtScript.js';
import { workerLimits } from '../workerLimits.js';
import { leafPrefix } from './hashedState.js';
import type { HeldRun, LeafRuns } from './leafRuns.js';
import { type Keep, type MadeSubtree, makeSubtree, packJobs, unpack } from './subtreeMake.js';
import type { FromSubtreeWorker, SubtreeWorkerData, ToSubtreeWorker } from './subtreeWorker.js';

type Bytes = Uint8Array;

interface Asked {
  owner: Bytes | undefined;
  path: Bytes;
  hash: Bytes;
  keep: Keep;
  held: readonly HeldRun[];
  resolve: (m: MadeSubtree) => void;
  reject: (e: unknown) => void;
}

export class SubtreeMaker {
  private worker?: Worker;
  /** Set once a worker failed: nodes are made here from then on. */
  private failure?: string;
  private readonly script?: string;
  private queued: Asked[] = [];
  /** Messages in flight: their makes, and when each was sent (performance.now()). */
  private readonly inFlight = new Map<number, { asked: Asked[]; sent: number }>();
  private seq = 0;
  private stopped = false;
  /** Called when the last message in flight is answered (`stop` waits for it). */
  private idle?: () => void;
  /** Nodes made, in the worker and here. */
  readonly made = { inThread: 0, here: 0 };
  /** Told each answer's wait in seconds, from its message sent (node.ts: a histogram). */
  onAnswer?: (seconds: number) => void;

  /** `runs`: files a worker can open, unless in memory (`--ephemeral`: nodes are made here). */
  constructor(private readonly runs: LeafRuns) {
    this.script = runs.dir === undefined ? undefined : builtScript(import.meta.url, 'subtreeWorker.js');
    runs.onDrop = (id) => this.post({ t: 'drop', id });
  }

  /** Whether nodes are made in the worker (`failure`: why no longer). */
  get inWorker(): { yes: boolean; failure?: string } {
    return { yes: !!this.script && !this.failure, failure: this.failure };
  }

  /**
   * The subtree at `path` of the trie `owner`, made from the live leaves, if its top is the node
   * `hash`: its top and the nodes below that `keep` asks for (views: copy what is kept).
   */
  make(owner: Bytes | undefined, path: Bytes, hash: Bytes, keep: Keep): Promise<MadeSubtree> {
    const held = this.runs.hold(leafPrefix(owner));
    if (!held.length) {
      this.runs.release(held);
      return Promise.resolve({ leaves: 0 });
    }
    if (!this.script || this.failure || this.stopped) return this.here({ owner, path, hash, keep, held });
    return new Promise((resolve, reject) => {
      if (!this.queued.length) process.nextTick(() => this.send());
      this.queued.push({ owner, path, hash, keep, held, resolve, reject });
    });
  }

  /** Waits for the makes in flight, then ends the worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.send();
    while (this.inFlight.size)
      await new Promise<void>((resolve) => {
        this.idle = resolve;
      });
    await this.worker?.terminate().catch(() => {});
    this.worker = undefined;
  }

  private async here(a: Omit<Asked, 'resolve' | 'reject'>): Promise<MadeSubtree> {
    try {
      this.made.here++;
      return await makeSubtree(
        a.held.map((h) => h.run),
        a.owner,
        a.path,
        a.hash,
        a.keep,
      );
    } finally {
      this.runs.release(a.held);
    }
  }

  private send(): void {
    const asked = this.queued;
    if (!asked.length) return;
    this.queued = [];
    if (this.failure) {
      this.makeHere(asked);
      return;
    }
    let jobs: Uint8Array;
    try {
      jobs = packJobs(
        asked.map((a) => ({
          owner: a.owner,
          path: a.path,
          hash: a.hash,
          keep: a.keep,
          runs: a.held.map((h) => h.id),
        })),
      );
    } catch {
      // A job of a trie other than the state's (a path past 255 nibbles): made here.
      this.makeHere(asked);
      return;
    }
    const seq = ++this.seq;
    this.inFlight.set(seq, { asked, sent: performance.now() });
    this.post({ t: 'make', seq, jobs });
  }

  private post(m: ToSubtreeWorker): void {
    if (this.failure || !this.script) return;
    if (!this.worker) {
      if (m.t === 'drop') return;
      this.worker = this.start(this.script);
    }
    // Keeps the process alive while an answer is awaited (a start's first make may be all that
    // is pending), and not once idle: a store left open must not hold the process.
    if (m.t === 'make') {
      this.worker.ref();
      this.worker.postMessage(m, [m.jobs.buffer as ArrayBuffer]);
    } else this.worker.postMessage(m);
  }

  private start(script: string): Worker {
    const worker = new Worker(script, {
      // A script is set only when the runs have a folder.
      workerData: { dir: this.runs.dir as string } satisfies SubtreeWorkerData,
      // It holds the open runs' indexes (~1 MB per 100 MB of runs) and one message's leaves.
      resourceLimits: workerLimits({ maxOldGenerationSizeMb: 64 }),
    });
    worker.on('message', (m: FromSubtreeWorker) => this.answered(m));
    worker.on('error', (e) => this.fail(`the subtree worker failed: ${e.message}`));
    worker.on('exit', (code) => {
      if (!this.stopped) this.fail(`the subtree worker exited (code ${code})`);
    });
    return worker;
  }

  private answered(m: FromSubtreeWorker): void {
    const sent = this.inFlight.get(m.seq);
    if (!sent) return;
    this.inFlight.delete(m.seq);
    this.onAnswer?.((performance.now() - sent.sent) / 1000);
    const { asked } = sent;
    if ('error' in m) {
      // Made again here: a run the worker could not read is read here, or the error is reported.
      this.makeHere(asked);
      if (!this.inFlight.size) this.quiet();
      return;
    }
    const made = unpack(m.packed, asked.length);
    for (const [i, a] of asked.entries()) {
      this.runs.release(a.held);
      this.made.inThread++;
      a.resolve(made[i]);
    }
    if (!this.inFlight.size) this.quiet();
  }

  /** No answer awaited: the worker no longer keeps the process alive; `stop` may go on. */
  private quiet(): void {
    this.worker?.unref();
    this.idle?.();
  }

  /** The worker is gone: what it had and everything after is made here. */
  private fail(why: string): void {
    if (this.failure) return;
    this.failure = why;
    this.worker = undefined;
    // On stderr for the operator; the node goes on, slower (the metric counts the nodes made here).
    process.emitWarning(`${why}; trie nodes are made on the event loop from now on`, {
      code: 'WHARF_SUBTREE_WORKER',
    });
    const lost = [...this.inFlight.values()].flatMap((f) => f.asked);
    this.inFlight.clear();
    this.idle?.();
    this.makeHere(lost);
  }

  /** Makes `asked` here, on the event loop, answering each as it is made. */
  private makeHere(asked: Asked[]): void {
    for (const a of asked) this.here(a).then(a.resolve, a.reject);
  }
}
