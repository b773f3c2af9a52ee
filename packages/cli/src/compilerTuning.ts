/**
 * When V8's optimizing compiler takes a function up, for the wharf process: after 8x the bytecode
 * V8 runs by default (its `--interrupt-budget`, 67,584 in Node.js 20's V8).
 *
 * A fresh chain node's first burst of transactions was paid for mostly by TurboFan compiling the
 * accept path on V8's background threads, on the same two cores that decode, recover and execute
 * the transactions: ~45 µs of a transfer's ~160 µs of CPU in the first 2,000, against ~5 once
 * warm. Code that runs a little longer in the baseline tiers before TurboFan takes it up is
 * compiled once it is clearly hot, and what is only warm in a burst is not compiled in it: the
 * first 2,000 cost ~112 µs each (Anvil ~140), and the same once warm
 * (docs/decisions/0610-turbofan-takes-code-up-later.md). 4x gained half as much; 16x left the
 * main thread in baseline code too long and cost more than it saved.
 *
 * The CLI owns its process, so it decides; the library leaves an embedder's V8 alone. V8 reads
 * the budget whenever it gives a function a new one, so setting it at run time, first thing,
 * holds for the code loaded after it and for every worker's isolate. An `--interrupt-budget`
 * given to node (argv or NODE_OPTIONS) wins.
 *
 * Only on the V8 it was measured on, Node.js 20's (11.3). Node.js 22's V8 (12.4) tiers up by
 * invocation counts, with Maglev between the baseline and TurboFan, and has no such flag: setting
 * it there would print "unrecognized flag" at every start and change nothing.
 */
import v8 from 'node:v8';
import { givenToNode } from './nodeFlags.js';

export const INTERRUPT_BUDGET = 8 * 67_584;

/** True for a V8 whose tier-up the interrupt budget drives as measured (11.3 and before). */
export function budgetDrivesTierUp(v8Version = process.versions.v8): boolean {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  return major < 11 || (major === 11 && minor <= 3);
}

/** Applies INTERRUPT_BUDGET unless node was given its own or its V8 has none; returns whether it did. */
export function tuneCompiler(
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  v8Version = process.versions.v8,
): boolean {
  if (!budgetDrivesTierUp(v8Version)) return false;
  if (givenToNode('interrupt-budget', execArgv, nodeOptions)) return false;
  v8.setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
