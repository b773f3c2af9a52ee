/**
 * V8's optimizing compiler for the wharf process: no inlining in TurboFan.
 *
 * A fresh chain node's first burst of transactions is paid for mostly by TurboFan compiling the
 * accept path on V8's background threads, on the same two cores that decode, recover and
 * execute the transactions: on a 2-core machine a node's first 2,000 transfers cost 145-190 µs
 * of CPU each against 95-145 once warm, and ~2 s of compiling went by in a short run. Without
 * inlining each function compiles on its own, small and once: ~40% less compiling, 150 µs a
 * transfer on a fresh node (against 177) and no slower once warm, with reads and mined blocks
 * as fast (docs/decisions/0610-no-turbofan-inlining.md). Most of a transfer's time is in native
 * code (secp256k1, keccak in WebAssembly, LevelDB), where inlining gains nothing.
 *
 * The CLI owns its process, so it decides; the library leaves an embedder's V8 alone. V8 reads
 * the flag at every compile, so setting it at run time holds for every thread's isolate. A
 * `--turbo-inlining` (or `--no-turbo-inlining`) given to node (argv or NODE_OPTIONS) wins.
 */
import v8 from 'node:v8';

/** Turns TurboFan's inlining off unless node was given its own choice; returns whether it did. */
export function tuneCompiler(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if ([...execArgv, nodeOptions].some((a) => /--(no-)?turbo[-_]inlining\b/.test(a))) return false;
  v8.setFlagsFromString('--no-turbo-inlining');
  return true;
}
