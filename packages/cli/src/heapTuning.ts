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
/**
 * The factor once released: the young generation's first growth takes it to its maximum (16 MB
 * semi-spaces). V8's default (2) took a fresh node's first burst of transactions through four
 * doublings, each after as many bytes had survived as the young generation held: many small
 * scavenges, each copying the pending block's live set (docs/decisions/0530). An idle node does
 * not grow it (nothing survives), so idle memory is as 0460 left it.
 */
const SEMI_SPACE_GROWTH_FACTOR = 16;

function given(flag: string, execArgv: string[], nodeOptions: string): boolean {
  const pattern = new RegExp(`--${flag.replaceAll('-', '[-_]')}`);
  return [...execArgv, nodeOptions].some((a) => pattern.test(a));
}

/** Applies HEAP_GROWING_PERCENT unless node was given its own; returns whether it did. */
export function tuneHeap(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (given('heap-growing-percent', execArgv, nodeOptions)) return false;
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
  if (given('semi-space-growth-factor', execArgv, nodeOptions)) return () => {};
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    v8.setFlagsFromString(`--semi-space-growth-factor=${SEMI_SPACE_GROWTH_FACTOR}`);
  };
}
