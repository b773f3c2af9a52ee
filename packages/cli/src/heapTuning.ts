/**
 * V8's heap sizing for the wharf process. Under load the chain node allocates ~150 MB/s while
 * its live heap stays at 45-75 MB (--trace-gc, 1,000 transfers/s). V8's default lets the old
 * generation grow up to 4x the live size before a full GC, so the committed heap swung between
 * 190 and 300 MB and RSS with it, with nothing leaking. A fixed 3x keeps the swing smaller at no
 * cost to pre-confirmation timing; 2x made full GCs frequent enough to make pre-confirmations
 * late (docs/decisions/0008-cli-heap-growing-percent.md).
 *
 * The CLI owns its process, so it decides; the library leaves an embedder's V8 alone. A
 * `--heap-growing-percent` given to node (argv or NODE_OPTIONS) wins; 0 restores V8's default.
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 200;

/** Applies HEAP_GROWING_PERCENT unless node was given its own; returns whether it did. */
export function tuneHeap(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const given = [...execArgv, nodeOptions].some((a) => /--heap[-_]growing[-_]percent/.test(a));
  if (given) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
