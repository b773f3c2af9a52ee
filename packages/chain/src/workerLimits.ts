/**
 * V8's limits for the node's own worker threads (the front threads, signature recovery, the
 * journal writer): each runs its own V8 isolate, with its own young generation.
 *
 * Why the young generation is held at V8's starting size: the CLI sets the process-wide
 * `--semi-space-growth-factor` to 16 once a node has started (docs/decisions/0530), so that the
 * main thread's first burst takes its young generation to its maximum at once. Every isolate
 * reads that flag. A worker's young generation grew the same way the first time a burst of its
 * allocations survived a scavenge: the busiest of the four went from 7 to 37 MB committed at
 * minute 8 of 20 at 1,000 transfers/s (`--trace-gc`, per isolate), a step of the node's RSS at a
 * moment no run can foresee, and the step the hour runs' fitted drift saw
 * (docs/decisions/0640-worker-young-generation-held.md). The workers' live sets are small (3-4 MB
 * after each GC): at 1 MB semi-spaces the busiest scavenges about twice a second.
 */
import type { ResourceLimits } from 'node:worker_threads';

/**
 * 3 MB: V8 gives the young generation three semi-spaces' worth (two semi-spaces and the space
 * for large young objects), so this is a 1 MB semi-space, the size every isolate starts at.
 */
const WORKER_YOUNG_GENERATION_MB = 3;

/** The resource limits every worker the node starts is given, with `more` beside them. */
export function workerLimits(more: ResourceLimits = {}): ResourceLimits {
  return { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, ...more };
}
