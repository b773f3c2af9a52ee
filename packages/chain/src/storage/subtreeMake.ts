/**
 * A disk-layer node made from its leaves (decision 0650): the leaves under its path read from
 * every run a read holds (leafRuns.ts), merged, and the subtree built over them (trie/subtree.ts).
 * The same code runs in the subtree worker (subtreeWorker.ts) and, without one, on the event
 * loop (subtreeMaker.ts).
 */
import { buildSubtree } from '../trie/subtree.js';
import type { TrieNodeEntry } from '../trie/types.js';
import { putsOf, rangeUnder } from './hashedState.js';
import { mergeAnswers } from './leafMerge.js';
import type { LeafRun } from './leafRun.js';
import { sameHash } from './pathLayers.js';

/** A subtree made: the leaves read, and its nodes (the top last) if its top's keccak is the one asked. */
export interface MadeSubtree {
  leaves: number;
  /** The top and the nodes below it that `keep` asks for. */
  nodes?: TrieNodeEntry[];
}

/**
 * Which nodes below its top a made subtree answers: those along these keys (nibbles from the
 * root: the keys whose reads wait on the top, which read these nodes next), or those whose path
 * is shorter than this many nibbles (a reader that may go anywhere below).
 */
export type Keep = number | readonly Uint8Array[];

/**
 * The subtree at `path` of the trie `owner` over the leaves in `runs` (oldest first), if its top
 * is the node `hash` (else the path holds another version: no nodes).
 */
export async function makeSubtree(
  runs: readonly LeafRun[],
  owner: Uint8Array | undefined,
  path: Uint8Array,
  hash: Uint8Array,
  keep: Keep,
): Promise<MadeSubtree> {
  const { gte, lt } = rangeUnder(owner, path);
  const got = await Promise.all(runs.map((r) => r.range(gte, lt)));
  const entries = mergeAnswers(
    runs.map((r) => r.cleared),
    got,
  );
  if (!entries.length) return { leaves: 0 };
  const { ref, nodes } = buildSubtree(putsOf(owner, entries), path);
  if (!sameHash(ref, hash)) return { leaves: entries.length };
  // The encodings are views into the trie encoder's shared slabs (nodeCodec.ts): a caller that
  // keeps one copies it.
  return { leaves: entries.length, nodes: kept(nodes, keep) };
}

/** `nodes` (the top last, always kept) that `keep` asks for. */
function kept(nodes: TrieNodeEntry[], keep: Keep): TrieNodeEntry[] {
  if (keep === Number.POSITIVE_INFINITY) return nodes;
  const out: TrieNodeEntry[] = [];
  const last = nodes.length - 1;
  for (let i = 0; i < last; i++) {
    const p = nodes[i][2];
    if (typeof keep === 'number' ? p.length < keep : keep.some((k) => isPrefix(p, k))) out.push(nodes[i]);
  }
  out.push(nodes[last]);
  return out;
}

function isPrefix(p: Uint8Array, key: Uint8Array): boolean {
  if (p.length > key.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== key[i]) return false;
  return true;
}

/** A node to make (subtreeWorker.ts): `makeSubtree`'s arguments, with the runs to read (oldest first) by id. */
export interface SubtreeJob {
  owner?: Uint8Array;
  path: Uint8Array;
  hash: Uint8Array;
  keep: Keep;
  runs: number[];
}

/** `keep` as packed: a depth below this, or one of these two. */
const KEEP_KEYS = 254;
const KEEP_ALL = 255;

/**
 * `keep` as it can be packed, keeping the same nodes or more (more is always right: only what
 * is cached grows): a depth past every path keeps all, as do more keys than a u16 counts or a
 * key longer than a u8 measures (a bulk update's root-level walks).
 */
function packable(keep: Keep): Keep {
  if (typeof keep === 'number') return keep >= KEEP_KEYS ? Number.POSITIVE_INFINITY : Math.max(0, keep);
  if (keep.length > 0xffff || keep.some((k) => k.length > 0xff)) return Number.POSITIVE_INFINITY;
  return keep;
}

/*
 * A message's jobs, packed into one buffer (moved to the worker: a few hundred jobs a message
 * cloned object by object cost the main thread ~2.5% of its time at minute 14 of 1,000/s):
 *   jobs u32, then per job
 *     owner flag u8 | [owner (32)] | path length u8 | path (nibbles) | keccak (32)
 *     | keep u8 (a depth; KEEP_ALL; KEEP_KEYS: keys u16 | per key: length u8 | nibbles)
 *     | runs u16 | per run: id u32
 */

export function packJobs(jobs: readonly SubtreeJob[]): Uint8Array {
  const keeps = jobs.map((j) => packable(j.keep));
  let size = 4;
  for (const [i, j] of jobs.entries()) {
    // The state tries' paths are at most 64 nibbles, and a make reads a few dozen runs.
    if (j.path.length > 0xff || j.runs.length > 0xffff) throw new Error('a subtree job too large to pack');
    size += 1 + (j.owner ? 32 : 0) + 1 + j.path.length + 32 + 1 + 2 + 4 * j.runs.length;
    const keep = keeps[i];
    if (typeof keep !== 'number') {
      size += 2;
      for (const k of keep) size += 1 + k.length;
    }
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, jobs.length);
  let at = 4;
  for (const [i, j] of jobs.entries()) {
    const keep = keeps[i];
    out[at++] = j.owner ? 1 : 0;
    if (j.owner) {
      out.set(j.owner, at);
      at += 32;
    }
    out[at++] = j.path.length;
    out.set(j.path, at);
    at += j.path.length;
    out.set(j.hash, at);
    at += 32;
    if (typeof keep === 'number') {
      out[at++] = keep === Number.POSITIVE_INFINITY ? KEEP_ALL : keep;
    } else {
      out[at++] = KEEP_KEYS;
      view.setUint16(at, keep.length);
      at += 2;
      for (const k of keep) {
        out[at++] = k.length;
        out.set(k, at);
        at += k.length;
      }
    }
    view.setUint16(at, j.runs.length);
    at += 2;
    for (const id of j.runs) {
      view.setUint32(at, id);
      at += 4;
    }
  }
  return out;
}

/** `packJobs`' buffer read back (views into it). */
export function unpackJobs(packed: Uint8Array): SubtreeJob[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const n = view.getUint32(0);
  const jobs: SubtreeJob[] = [];
  let at = 4;
  for (let i = 0; i < n; i++) {
    let owner: Uint8Array | undefined;
    if (packed[at++] === 1) {
      owner = packed.subarray(at, at + 32);
      at += 32;
    }
    const pl = packed[at++];
    const path = packed.subarray(at, at + pl);
    at += pl;
    const hash = packed.subarray(at, at + 32);
    at += 32;
    const k = packed[at++];
    let keep: Keep;
    if (k === KEEP_ALL) keep = Number.POSITIVE_INFINITY;
    else if (k !== KEEP_KEYS) keep = k;
    else {
      const keys: Uint8Array[] = [];
      const count = view.getUint16(at);
      at += 2;
      for (let j = 0; j < count; j++) {
        const len = packed[at++];
        keys.push(packed.subarray(at, at + len));
        at += len;
      }
      keep = keys;
    }
    const runs: number[] = [];
    const r = view.getUint16(at);
    at += 2;
    for (let j = 0; j < r; j++) {
      runs.push(view.getUint32(at));
      at += 4;
    }
    jobs.push({ owner, path, hash, keep, runs });
  }
  return jobs;
}

/*
 * A worker's answers, packed into one buffer per message (moved to the node, not copied):
 *   per job    made u8 (0: no node of that keccak there) | leaves u32 | [nodes u32 | nodes]
 *   per node   keccak (32) | path length u8 | path (nibbles) | encoding length u16 | encoding
 */

export function pack(made: MadeSubtree[]): Uint8Array {
  let size = 0;
  for (const m of made) {
    size += 5;
    if (m.nodes) {
      size += 4;
      for (const [, enc, p] of m.nodes) size += 32 + 1 + p.length + 2 + enc.length;
    }
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const m of made) {
    out[at] = m.nodes ? 1 : 0;
    view.setUint32(at + 1, m.leaves);
    at += 5;
    if (!m.nodes) continue;
    view.setUint32(at, m.nodes.length);
    at += 4;
    for (const [hash, enc, p] of m.nodes) {
      // A node's encoding is at most 532 bytes (a branch of 16 hashes and a value).
      if (enc.length > 0xffff) throw new Error(`a trie node of ${enc.length} bytes`);
      out.set(hash, at);
      out[at + 32] = p.length;
      out.set(p, at + 33);
      at += 33 + p.length;
      view.setUint16(at, enc.length);
      out.set(enc, at + 2);
      at += 2 + enc.length;
    }
  }
  return out;
}

/** `pack`'s buffer read back: views into it (the caller copies what it keeps). */
export function unpack(packed: Uint8Array, jobs: number): MadeSubtree[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const out: MadeSubtree[] = [];
  let at = 0;
  for (let j = 0; j < jobs; j++) {
    const isMade = packed[at] === 1;
    const leaves = view.getUint32(at + 1);
    at += 5;
    if (!isMade) {
      out.push({ leaves });
      continue;
    }
    const n = view.getUint32(at);
    at += 4;
    const nodes: TrieNodeEntry[] = [];
    for (let i = 0; i < n; i++) {
      const hash = packed.subarray(at, at + 32);
      const pl = packed[at + 32];
      const p = packed.subarray(at + 33, at + 33 + pl);
      at += 33 + pl;
      const el = view.getUint16(at);
      nodes.push([hash, packed.subarray(at + 2, at + 2 + el), p]);
      at += 2 + el;
    }
    out.push({ leaves, nodes });
  }
  return out;
}
