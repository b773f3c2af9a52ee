/**
 * Warns when a flashblock is shown late, saying where its time went: an operator can tell a
 * stalled disk (the journal write; a flashblock is never shown before it is on disk) from a
 * busy node. At most one line a second; the ones left out are counted in the next.
 *
 * A flashblock due while the process is still starting (the CLI's `up` starts the platform
 * server after the chain, on the same thread) is late because of that start, not because the
 * node is slow: it is logged at debug level, so that the first screen a person reads is calm.
 */
import type { Logger } from 'pino';

/** Where a late flashblock's time went (ms). */
export interface LateFlashblock {
  block: bigint;
  index: number;
  /** Shown this long after its deadline. */
  lateMs: number;
  /** Its deadline had passed by this much when it was scheduled (what ran before it ran past it). */
  behindMs: number;
  /** Its timer fired this long after it was set to (the event loop was busy). */
  timerMs: number;
  /** It waited this long in the builder's queue (a staging pass or a seal ahead of it). */
  queuedMs: number;
  /** From its start to built: staging what was left, the journal write, the state root. */
  buildMs: number;
  /** Of which executing what no staging pass had (`stagedHere` transactions). */
  stageMs: number;
  stagedHere: number;
  /** The journal write, and the state root computed beside it, if it had transactions. */
  journalMs?: number;
  rootMs?: number;
  /** From the later of deadline and built to shown (the event loop was busy at the deadline). */
  wakeMs: number;
}

const MIN_GAP_MS = 1000;

export function lateFlashblockLogger(
  log: Logger | undefined,
  now = Date.now,
  /** Resolves once the process has started; without it, the process counts as started. */
  started?: Promise<unknown>,
): (l: LateFlashblock) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  let startedAt = started ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  started?.then(
    () => {
      startedAt = now();
    },
    () => {
      startedAt = now();
    },
  );
  return (l) => {
    if (!log) return;
    const t = now();
    // Its deadline fell before the process had started (or it has not yet).
    if (t - l.lateMs < startedAt) {
      log.debug(
        { block: Number(l.block), index: l.index, lateMs: Math.round(l.lateMs) },
        'flashblock late during start-up',
      );
      return;
    }
    if (t - lastAt < MIN_GAP_MS) {
      unlogged++;
      return;
    }
    lastAt = t;
    const ms = (x: number | undefined) => (x === undefined ? undefined : Math.round(x));
    log.warn(
      {
        block: Number(l.block),
        index: l.index,
        lateMs: ms(l.lateMs),
        cause: causeOf(l),
        behindMs: ms(l.behindMs),
        timerMs: ms(l.timerMs),
        queuedMs: ms(l.queuedMs),
        buildMs: ms(l.buildMs),
        stageMs: ms(l.stageMs),
        stagedHere: l.stagedHere,
        journalMs: ms(l.journalMs),
        rootMs: ms(l.rootMs),
        wakeMs: ms(l.wakeMs),
        ...(unlogged ? { alsoLateSinceLastWarning: unlogged } : {}),
      },
      'flashblock shown late',
    );
    unlogged = 0;
  };
}

/**
 * A journal write that ended while the state root was computed beside it is noticed only when
 * the root is done: within this much of the root, the root was the long pole, not the disk.
 */
const NOTICED_WITH_ROOT_MS = 3;

/** The part that took longest. */
export function causeOf(l: LateFlashblock): string {
  const journal = l.journalMs ?? 0;
  const root = l.rootMs ?? 0;
  const parts: [string, number][] = [
    ['the disk (journal write)', journal > root + NOTICED_WITH_ROOT_MS ? journal : 0],
    ['the flashblock or seal before it ran past its deadline', l.behindMs],
    ['the event loop was busy (timer fired late)', l.timerMs],
    ['waited behind a staging pass or a seal', l.queuedMs],
    ['executing transactions no staging pass had', l.stageMs],
    ['the state root (beside the journal write)', root],
    ['publishing', l.buildMs - l.stageMs - Math.max(journal, root)],
    ['the event loop was busy at the deadline', l.wakeMs],
  ];
  return parts.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}
