/**
 * The disk layer's leaves as sorted runs of our own (decision 0670), in `<dataDir>/chain-leaves`:
 * every flush writes its changed leaves as one new run (leafRun.ts), and runs of about the same
 * size are merged, `FANOUT` at a time, into one bigger run (in a thread of their own,
 * leafMergeWorker.ts: a merge of the largest runs reads and writes hundreds of MB). A leaf read
 * is then a `pread` of a block or two in each run instead of a LevelDB iterator: no table is
 * mapped into the process, and nothing compacts the runs but these merges.
 *
 * Which runs are live is the manifest (keys.leafRuns, in the trie's database): a flush's run is
 * written and synced first, then named in the manifest in the same batch as the flush's nodes and
 * keys.stateLayer. A merge's run, once synced, replaces its inputs in the manifest by a synced
 * put queued behind the blocks. A file the manifest does not name (a flush or merge a crash cut
 * short, a reset) is deleted at the next open.
 *
 * Reads hold the runs they read: a run a merge replaces is closed and deleted once its last read
 * is done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LeafChanges } from './hashedState.js';
import { Worker } from 'node:worker_threads';
import { builtScript } from '../builtScript.js';
import { workerLimits } from '../workerLimits.js';
import { mergeAnswers, mergeRuns } from './leafMerge.js';
import type { MergeJob } from './leafMergeWorker.js';
import { type LeafEntry, LeafRun, OWNER_PREFIX_BYTES, RUN_SUFFIX, RunWriter, runFile } from './leafRun.js';
import { fromLatin1, latin1 } from './pathLayers.js';

type Bytes = Uint8Array;

/** Runs of about the same size merged at once: a leaf is rewritten about log4(state / flush) times. */
export const FANOUT = 4;
/** Runs below this size count as one size class (a flush at low load writes small runs). */
const MIN_CLASS_BYTES = 1 << 20;
/** Leaves a flush's run takes between two turns of the event loop. */
const WRITE_SLICE = 2048;
const STORAGE_LEAF = 'g'.charCodeAt(0);

/** A live run as a read holds it (`hold`). */
export interface HeldRun {
  readonly id: number;
  readonly run: LeafRun;
}

interface Held extends HeldRun {
  /** Reads in flight on the run. */
  users: number;
  /** Replaced (merge) or cleared (reset): closed and deleted when its last read is done. */
  retired: boolean;
}

/** A run written and synced, not yet live: `replaces` the ids a merge made it from. */
export interface NewRun {
  id: number;
  run: LeafRun;
  replaces: number[];
  /** The reset count when it was started: a reset in between makes it moot. */
  generation: number;
}

/** A run being written (`create`), to `finish`. */
export interface Writing {
  id: number;
  writer: RunWriter;
  generation: number;
}

/** The size class of a run of `bytes` (powers of FANOUT above MIN_CLASS_BYTES). */
const sizeClass = (bytes: number) =>
  bytes <= MIN_CLASS_BYTES ? 0 : Math.floor(Math.log(bytes / MIN_CLASS_BYTES) / Math.log(FANOUT));

/**
 * Which of the runs (sizes, oldest first) to merge: the index of the first of the newest runs to
 * merge, or undefined. For the smallest size class that qualifies, the newest runs of that class
 * or smaller: at least FANOUT of them, two or more of that class (runs only merge with their
 * neighbours, so that the newer of two runs still wins; a big run is not rewritten for small ones).
 */
export function mergeFrom(sizes: number[]): number | undefined {
  const n = sizes.length;
  if (n < FANOUT) return undefined;
  const classes = sizes.map(sizeClass);
  const top = Math.max(...classes);
  for (let c = 0; c <= top; c++) {
    let j = n;
    let ofClass = 0;
    while (j > 0 && classes[j - 1] <= c) if (classes[--j] === c) ofClass++;
    if (n - j >= FANOUT && ofClass >= 2) return j;
  }
  return undefined;
}

/** The manifest's value: the live runs' ids, oldest first, u32 each. */
function encodeManifest(ids: number[]): Bytes {
  const b = Buffer.allocUnsafe(4 * ids.length);
  for (const [i, id] of ids.entries()) b.writeUInt32BE(id, 4 * i);
  return b;
}

function decodeManifest(v: Bytes | undefined): number[] {
  if (!v) return [];
  const b = Buffer.from(v.buffer, v.byteOffset, v.length);
  const ids: number[] = [];
  for (let i = 0; i + 4 <= b.length; i += 4) ids.push(b.readUInt32BE(i));
  return ids;
}

export class LeafRuns {
  /** The live runs, oldest first. */
  private runs: Held[] = [];
  private nextId = 1;
  private generation = 0;
  /** Closing: a merge in progress gives up at its next slice, and none starts. */
  private stopping = false;
  /** The thread of the merge in progress, if it runs in one. */
  private merger?: Worker;
  /** Runs merged, their bytes, and how many of them in a thread (the store counts a flush's). */
  readonly written = { mergeBytes: 0, merges: 0, mergesInThread: 0 };
  /** Told of each run closed for good (a reader of the runs' files elsewhere closes its own). */
  onDrop?: (id: number) => void;

  private constructor(
    /** The runs' folder; none: in memory (`--ephemeral`). */
    readonly dir?: string,
  ) {}

  /**
   * Opens the runs the manifest names (keys.leafRuns' value; none: no run) in `dir` (created if
   * missing; none: in memory), deleting every other run file there.
   */
  static async open(dir: string | undefined, manifest: Bytes | undefined): Promise<LeafRuns> {
    const runs = new LeafRuns(dir);
    const ids = decodeManifest(manifest);
    if (!dir) {
      if (ids.length) throw new Error('leaf runs named in memory');
      return runs;
    }
    await fs.promises.mkdir(dir, { recursive: true });
    const live = new Set(ids);
    for (const name of await fs.promises.readdir(dir)) {
      if (!name.endsWith(RUN_SUFFIX)) continue;
      const id = Number.parseInt(name, 10);
      runs.nextId = Math.max(runs.nextId, id + 1);
      if (!live.has(id)) await fs.promises.rm(path.join(dir, name), { force: true });
    }
    try {
      for (const id of ids) {
        runs.runs.push({
          id,
          run: await LeafRun.openFile(runFile(dir, id)),
          users: 0,
          retired: false,
        });
        runs.nextId = Math.max(runs.nextId, id + 1);
      }
    } catch (e) {
      await runs.close();
      throw new Error(`the state's leaf runs in ${dir} are damaged: ${(e as Error).message}`, { cause: e });
    }
    return runs;
  }

  /** The file of run `id` (none: runs in memory). */
  private fileOf(id: number): string | undefined {
    return this.dir && runFile(this.dir, id);
  }

  /** Live runs and the bytes of their files. */
  get stats(): { runs: number; bytes: number; entries: number } {
    let bytes = 0;
    let entries = 0;
    for (const h of this.runs) {
      bytes += h.run.size;
      entries += h.run.entries;
    }
    return { runs: this.runs.length, bytes, entries };
  }

  /**
   * The live leaves with keys in [gte, lt), in key order. A range within one storage trie
   * (rangeUnder) does not read the runs older than the newest one that cleared it.
   */
  async range(gte: Bytes, lt: Bytes): Promise<[Bytes, Bytes][]> {
    const held = this.hold(gte);
    if (!held.length) return [];
    let got: LeafEntry[][];
    try {
      got = await Promise.all(held.map((h) => h.run.range(gte, lt)));
    } finally {
      this.release(held);
    }
    return mergeAnswers(
      held.map((h) => h.run.cleared),
      got,
    );
  }

  /**
   * The runs a read of a range starting at `gte` reads, oldest first, held: none is closed or
   * deleted before `release`. A range within one storage trie (rangeUnder) starts at the newest
   * run that cleared it. A copy: a flush or a merge may change the live runs meanwhile.
   */
  hold(gte: Bytes): HeldRun[] {
    let held = this.runs.slice();
    if (gte[0] === STORAGE_LEAF && gte.length >= OWNER_PREFIX_BYTES) {
      const owner = latin1(gte.subarray(0, OWNER_PREFIX_BYTES));
      for (let i = held.length - 1; i >= 0; i--)
        if (held[i].run.cleared.has(owner)) {
          held = held.slice(i);
          break;
        }
    }
    for (const h of held) h.users++;
    return held;
  }

  /** Ends a `hold`. */
  release(held: readonly HeldRun[]): void {
    for (const h of held) this.releaseOne(h as Held);
  }

  /**
   * A flush's leaves as a new run, written and synced but not live: name it in the manifest
   * (`manifestWith`), then `adopt` it. Undefined when the flush changed no leaf.
   */
  async write(changes: LeafChanges): Promise<NewRun | undefined> {
    // Keys as latin1 strings sort as their bytes. By their first two bytes (kind and first hash
    // byte) into buckets first, each sorted in its own slice: a flush's 100,000s of keys are not
    // one long sort on the event loop.
    const buckets: [string, Bytes | null][][] = [];
    let n = 0;
    for (const e of changes.entries()) {
      const b = (e[0].charCodeAt(0) << 8) | e[0].charCodeAt(1);
      const bucket = buckets[b];
      if (bucket) bucket.push(e);
      else buckets[b] = [e];
      n++;
    }
    if (!n && !changes.cleared.size) return undefined;
    const out = await this.create();
    const w = out.writer;
    try {
      let since = 0;
      for (const bucket of buckets) {
        if (!bucket) continue;
        bucket.sort((a, b) => (a[0] < b[0] ? -1 : 1));
        for (const [k, v] of bucket) await w.add(fromLatin1(k), v);
        since += bucket.length;
        if (since >= WRITE_SLICE) {
          since = 0;
          await nextTurn();
        }
      }
      return await this.finish(out, [...changes.cleared].map(fromLatin1));
    } catch (e) {
      await w.abandon();
      throw e;
    }
  }

  /** A new run to write entries to in key order (a conversion's), then `finish`. */
  async create(): Promise<Writing> {
    const id = this.nextId++;
    return { id, writer: await RunWriter.create(this.fileOf(id)), generation: this.generation };
  }

  /** A run written (`create`), synced and open, not live: `cleared` its storage tries cleared. */
  async finish(w: Writing, cleared: Bytes[] = []): Promise<NewRun> {
    return { id: w.id, run: await w.writer.finish(cleared), replaces: [], generation: w.generation };
  }

  /**
   * The manifest once `added` are live, in order: a flush's run after the others, a merge's in
   * place of its inputs.
   */
  manifestWith(added: NewRun[] = []): Bytes {
    const ids = this.runs.map((h) => h.id);
    for (const r of added) {
      if (!r.replaces.length) {
        ids.push(r.id);
        continue;
      }
      const at = ids.indexOf(r.replaces[0]);
      ids.splice(at, r.replaces.length, r.id);
    }
    return encodeManifest(ids);
  }

  /** `r` is live: its manifest has landed. A merge's inputs retire. */
  adopt(r: NewRun): void {
    const held: Held = { id: r.id, run: r.run, users: 0, retired: false };
    if (!r.replaces.length) {
      this.runs.push(held);
      return;
    }
    const at = this.runs.findIndex((h) => h.id === r.replaces[0]);
    const gone = this.runs.splice(at, r.replaces.length, held);
    for (const h of gone) this.retire(h);
  }

  /** Gives up a run that will not be live (its manifest did not land, or a reset came first). */
  async discard(r: NewRun): Promise<void> {
    await r.run.close().catch(() => {});
    const file = this.fileOf(r.id);
    if (file) await fs.promises.rm(file, { force: true });
  }

  /** Whether `r` is still of the current state (no reset since it was started). */
  isCurrent(r: NewRun): boolean {
    return r.generation === this.generation;
  }

  /**
   * The merge the runs are due for, written and synced, not live (as `write`'s), or undefined.
   * Only one merge runs at a time (the caller's queue); flushes may add runs meanwhile.
   */
  async merge(): Promise<NewRun | undefined> {
    const from = this.stopping ? undefined : mergeFrom(this.runs.map((h) => h.run.size));
    if (from === undefined) return undefined;
    const group = this.runs.slice(from);
    const whole = from === 0;
    for (const h of group) h.users++;
    try {
      const script = this.dir && builtScript(import.meta.url, 'leafMergeWorker.js');
      const r = script ? await this.mergeInWorker(script, group, whole) : await this.mergeHere(group, whole);
      this.written.mergeBytes += r.run.size;
      this.written.merges++;
      return { ...r, replaces: group.map((h) => h.id) };
    } finally {
      this.release(group);
    }
  }

  /** A merge on the event loop, in slices: runs in memory (or a build without the worker). */
  private async mergeHere(group: Held[], whole: boolean): Promise<NewRun> {
    const out = await this.create();
    try {
      const run = await mergeRuns(
        group.map((h) => h.run),
        out.writer,
        whole,
        () => this.stopping,
      );
      return { id: out.id, run, replaces: [], generation: out.generation };
    } catch (e) {
      await out.writer.abandon();
      throw e;
    }
  }

  /** A merge of runs on disk in a thread of its own (leafMergeWorker.ts); `stop` ends it. */
  private async mergeInWorker(script: string, group: Held[], whole: boolean): Promise<NewRun> {
    const id = this.nextId++;
    const generation = this.generation;
    const out = this.fileOf(id) as string;
    const job: MergeJob = { inputs: group.map((h) => this.fileOf(h.id) as string), out, whole };
    const worker = new Worker(script, {
      workerData: job,
      // It holds a chunk of each run and the entries between two writes.
      resourceLimits: workerLimits({ maxOldGenerationSizeMb: 128 }),
    });
    this.merger = worker;
    const answer = await new Promise<{ size?: number; error?: string }>((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (e) => resolve({ error: e.message }));
      worker.once('exit', () => resolve({ error: 'the node is stopping' }));
    });
    this.merger = undefined;
    if (answer.error !== undefined) {
      await fs.promises.rm(out, { force: true });
      throw new Error(`merging leaf runs failed: ${answer.error}`);
    }
    this.written.mergesInThread++;
    return { id, run: await LeafRun.openFile(out), replaces: [], generation };
  }

  /** A reset: every run retires (the manifest is gone with the trie's keys). */
  clear(): void {
    this.generation++;
    for (const h of this.runs.splice(0)) this.retire(h);
  }

  /** Merges stop: the one in progress gives up (its file deleted), no other starts. */
  stop(): void {
    this.stopping = true;
    this.merger?.terminate().catch(() => {});
  }

  async close(): Promise<void> {
    this.stopping = true;
    for (const h of this.runs.splice(0)) await h.run.close().catch(() => {});
  }

  private releaseOne(h: Held): void {
    if (--h.users === 0 && h.retired) this.drop(h);
  }

  private retire(h: Held): void {
    h.retired = true;
    if (h.users === 0) this.drop(h);
  }

  private drop(h: Held): void {
    this.onDrop?.(h.id);
    const file = this.fileOf(h.id);
    h.run
      .close()
      .catch(() => {})
      .then(() => (file ? fs.promises.rm(file, { force: true }) : undefined))
      .catch(() => {});
  }
}
