/**
 * Merging leaf runs (decision 0670): the entries of several neighbouring runs, oldest first, as
 * one run. Of a key in several runs the newest run's entry is kept; an entry of a storage trie a
 * newer run of the group cleared goes. `whole`: the group starts with the oldest live run, so
 * nothing older is left for a deletion or a clear to hide, and they go too.
 *
 * Runs in the leaf-merge worker (leafMergeWorker.ts) for runs on disk, on the event loop in
 * slices for runs in memory (leafRuns.ts).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type LeafEntry, type LeafRun, OWNER_PREFIX_BYTES, type RunWriter } from './leafRun.js';
import { fromLatin1, latin1 } from './pathLayers.js';

const STORAGE_LEAF = 'g'.charCodeAt(0);
/** Entries merged between two turns of the event loop. */
const SLICE = 2048;

/**
 * Writes the merge of `group` (oldest first) to `w` and finishes it. `stopped`: asked between
 * slices; true gives up (throws; the caller abandons `w`).
 */
export async function mergeRuns(
  group: LeafRun[],
  w: RunWriter,
  whole: boolean,
  stopped: () => boolean = () => false,
): Promise<LeafRun> {
  // The newest run in the group that cleared each storage trie: older entries there go.
  const clearedAt = new Map<string, number>();
  for (const [i, run] of group.entries()) for (const owner of run.cleared) clearedAt.set(owner, i);
  const cursors = await Promise.all(group.map((run) => Cursor.start(run)));
  let since = 0;
  for (;;) {
    // The smallest key; of equal keys the newest run's.
    let pick = -1;
    for (let i = 0; i < cursors.length; i++) {
      const c = cursors[i].current;
      if (!c) continue;
      if (pick < 0) pick = i;
      else if (Buffer.compare(c[0], (cursors[pick].current as LeafEntry)[0]) <= 0) pick = i;
    }
    if (pick < 0) break;
    const [key, value] = cursors[pick].current as LeafEntry;
    for (const c of cursors) if (c.current && Buffer.compare(c.current[0], key) === 0) await c.next();
    if (key[0] === STORAGE_LEAF && clearedAt.size) {
      const at = clearedAt.get(latin1(key.subarray(0, OWNER_PREFIX_BYTES)));
      if (at !== undefined && at > pick) continue;
    }
    if (value === null && whole) continue;
    await w.add(key, value);
    if (++since >= SLICE) {
      since = 0;
      await nextTurn();
      if (stopped()) throw new Error('the node is stopping');
    }
  }
  return w.finish(whole ? [] : [...clearedAt.keys()].map(fromLatin1));
}

/**
 * The live entries of a range read from several runs (`got[i]`, sorted, from the run whose
 * cleared storage tries are `cleared[i]`; oldest first), merged: the smallest key next, of equal
 * keys the newest run's; deleted leaves and entries of a storage trie a newer run cleared go.
 */
export function mergeAnswers(cleared: ReadonlySet<string>[], got: LeafEntry[][]): [Uint8Array, Uint8Array][] {
  // One run: nothing older for its clears to hide.
  if (got.length === 1) {
    const out: [Uint8Array, Uint8Array][] = [];
    for (const [key, value] of got[0]) if (value !== null) out.push([key, value]);
    return out;
  }
  // A range over several storage tries: the newest run that cleared each (older entries go).
  const clearedAt = new Map<string, number>();
  for (const [i, owners] of cleared.entries()) for (const owner of owners) clearedAt.set(owner, i);
  const at = new Array<number>(got.length).fill(0);
  const out: [Uint8Array, Uint8Array][] = [];
  for (;;) {
    let pick = -1;
    for (let i = 0; i < got.length; i++) {
      const e = got[i][at[i]];
      if (!e) continue;
      if (pick < 0 || Buffer.compare(e[0], got[pick][at[pick]][0]) <= 0) pick = i;
    }
    if (pick < 0) return out;
    const [key, value] = got[pick][at[pick]];
    for (let i = 0; i < got.length; i++) {
      const e = got[i][at[i]];
      if (e && Buffer.compare(e[0], key) === 0) at[i]++;
    }
    if (value === null) continue;
    if (clearedAt.size && key[0] === STORAGE_LEAF) {
      const c = clearedAt.get(latin1(key.subarray(0, OWNER_PREFIX_BYTES)));
      if (c !== undefined && c > pick) continue;
    }
    out.push([key, value]);
  }
}

/** Reads a run's entries in order, a chunk at a time. */
class Cursor {
  private chunk: LeafEntry[] = [];
  private i = 0;
  private constructor(private readonly chunks: AsyncGenerator<LeafEntry[]>) {}

  static async start(run: LeafRun): Promise<Cursor> {
    const c = new Cursor(run.all());
    await c.fill();
    return c;
  }

  get current(): LeafEntry | undefined {
    return this.chunk[this.i];
  }

  async next(): Promise<void> {
    if (++this.i >= this.chunk.length) await this.fill();
  }

  private async fill(): Promise<void> {
    this.i = 0;
    this.chunk = [];
    while (!this.chunk.length) {
      const r = await this.chunks.next();
      if (r.done) return;
      this.chunk = r.value;
    }
  }
}
