/**
 * V8's heap sizing for the wharf process. Under load the chain node allocates ~150 MB/s while
 * its live heap stays at 60-110 MB (heap snapshots, 1,000 transfers/s). V8's default lets the old
 * generation grow up to 4x the live size before a full GC; 3x (0008) still left the committed heap
 * at 250-300 MB, about 45% of the node's RSS. 1.5x holds it at 175-190 MB: RSS 130-170 MB lower at every
 * minute of 20 at 1,000 transfers/s, with pre-confirmations as on time (p99 214.6 ms, 0 late,
 * deviation p99 12.9 ms) and ~13% more CPU for 3-4x the full GCs, which are incremental and
 * concurrent today; in 2026-11-27's build 2x made pre-confirmations late
 * (docs/decisions/0590-cli-heap-grows-1-5x-its-live-size.md).
 *
 * The CLI owns its process, so it decides; the library leaves an embedder's V8 alone. A
 * `--heap-growing-percent` given to node (argv or NODE_OPTIONS) wins; 0 restores V8's default.
 */
import v8 from 'node:v8';
import { givenToNode } from './nodeFlags.js';

export const HEAP_GROWING_PERCENT = 50;
/**
 * The factor once released: the young generation's first growth takes it to its maximum (16 MB
 * semi-spaces). V8's default (2) took a fresh node's first burst of transactions through four
 * doublings, each after as many bytes had survived as the young generation held: many small
 * scavenges, each copying the pending block's live set (docs/decisions/0530). An idle node does
 * not grow it (nothing survives), so idle memory is as 0460 left it. Every isolate of the process
 * reads the factor: the chain node's worker threads hold theirs at 1 MB semi-spaces
 * (@wharf/chain's workerLimits.ts, decision 0640).
 */
const SEMI_SPACE_GROWTH_FACTOR = 16;

/** Applies HEAP_GROWING_PERCENT unless node was given its own; returns whether it did. */
export function tuneHeap(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (givenToNode('heap-growing-percent', execArgv, nodeOptions)) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

/**
 * Keeps the young generation small (V8 takes one step at most) until the returned function is called.
 * A node's start (genesis, the dev accounts, the threads) keeps enough of what it allocates that
 * V8 doubles the young generation up to its 16 MB semi-spaces: 32 MB resident that an idle node
 * does not use and that V8 gives back only after ~10 s of quiet (docs/decisions/0460). Held
 * during the start, it grows again as soon as load asks for it once released (V8 reads the
 * factor at every growth), straight to its maximum. A `--semi-space-growth-factor` given to node wins: nothing is held.
 */
export function holdYoungGeneration(
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): () => void {
  if (givenToNode('semi-space-growth-factor', execArgv, nodeOptions)) return () => {};
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    v8.setFlagsFromString(`--semi-space-growth-factor=${SEMI_SPACE_GROWTH_FACTOR}`);
  };
}
