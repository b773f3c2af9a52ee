/**
 * The main thread's side of the front threads' read replicas (readReplica.ts): it tells them
 * what changed in the state reads see, BEFORE anyone can see the change, then bumps the shared
 * version. A worker that answers a read takes in every message posted before the version it
 * reads, so a client that saw a pre-confirmation or a block anywhere (an answer, a push) and
 * then reads on a connection a worker holds sees it too.
 *
 * Changes are found by what reads resolve to (state/resolve.ts): the head block (`latest`, the
 * flat state) and the pending snapshot's state (`pending`). `sync()` runs when the builder shows
 * a flashblock or seals (node.ts registers those listeners before any that send), after every
 * dev method (which may change state in other ways: `force`), and before the main thread
 * answers a worker's request (whatever it reads then is stamped with the version it read at).
 */
import type { Block } from '@ethereumjs/block';
import type { MessagePort } from 'node:worker_threads';
import type { SealedChanges } from '../builder/pendingBlock.js';
import { quantity } from '../primitives/hex.js';
import type { Methods } from './context.js';
import {
  FrontCounter,
  MAX_FRONT_THREADS,
  type ReplicaConstants,
  type ReplicaStart,
  type StateMessage,
} from './frontProtocol.js';

export interface ReplicaSource {
  /** The latest sealed block. */
  head(): Block;
  /** What `pending` reads read (the pending snapshot's state): compared by identity. */
  pendingState(): unknown;
  constants: ReplicaConstants;
}

export class ReplicaPublisher {
  /** Shared with every worker: see FrontCounter. */
  readonly version = new SharedArrayBuffer(4 * (FrontCounter.Open + MAX_FRONT_THREADS));
  private readonly counter = new Int32Array(this.version);
  private v = 0;
  private readonly ports = new Set<MessagePort>();
  private head: Block;
  private pending: unknown;
  /** What the last sealed block changed (sealedChanges comes before the head is announced). */
  private sealed?: { block: Block; accounts: string[] };

  constructor(private readonly src: ReplicaSource) {
    // No front thread listens yet: their slots of open connections say so (-1).
    for (let i = 0; i < MAX_FRONT_THREADS; i++) this.counter[FrontCounter.Open + i] = -1;
    this.head = src.head();
    this.pending = src.pendingState();
  }

  /** A new worker's starting point; its port gets every message from here on. */
  attach(port: MessagePort): ReplicaStart {
    this.sync();
    this.ports.add(port);
    return { v: this.v, head: quantity(this.head.header.number), constants: this.src.constants };
  }

  /** What the front threads counted (their connections, their own answers). */
  count(which: FrontCounter.Accepted | FrontCounter.Answered): number {
    return Atomics.load(this.counter, which) >>> 0;
  }

  /** The connections front thread `index` holds open now; -1 while it does not listen. */
  open(index: number): number {
    return Atomics.load(this.counter, FrontCounter.Open + index);
  }

  /** Front thread `index` has stopped: its connections are gone and it takes no share. */
  stopped(index: number): void {
    Atomics.store(this.counter, FrontCounter.Open + index, -1);
  }

  detach(port: MessagePort): void {
    this.ports.delete(port);
  }

  /** Listener of the builder's sealedChanges: the keys the next head changed. */
  sealedChanges(block: Block, changed: SealedChanges): void {
    this.sealed = { block, accounts: [...changed.accounts, ...changed.storage.keys()] };
  }

  /**
   * Posts what changed since the last call, if anything (`force`: everything may have), and
   * returns the version that covers the state as it is now.
   */
  sync(force = false): number {
    const head = this.src.head();
    const pending = this.src.pendingState();
    if (!force && head === this.head && pending === this.pending) return this.v;
    const m: StateMessage = { v: this.v + 1, head: quantity(head.header.number) };
    if (force) {
      m.clearLatest = true;
      m.clearPending = true;
    } else if (head !== this.head) {
      // The next block on the last one, with the keys it changed: only those are dropped.
      const next = this.sealed?.block === head && head.header.number === this.head.header.number + 1n;
      if (next && this.sealed) m.accounts = this.sealed.accounts;
      else m.clearLatest = true;
      m.clearPending = true;
    }
    if (pending !== this.pending) m.clearPending = true;
    this.head = head;
    this.pending = pending;
    this.sealed = undefined;
    this.v = m.v;
    for (const p of this.ports) p.postMessage(m);
    // After the posts: a worker that sees this version finds every message up to it.
    Atomics.store(this.counter, FrontCounter.Version, this.v);
    return this.v;
  }
}

/**
 * `methods` (the dev methods: evm_*, anvil_*, hardhat_*) telling the replicas, once each has
 * run, that anything may have changed: they change state in ways the head and the pending
 * snapshot do not always show (a balance set in interval mode, a revert, a state loaded).
 */
export function syncedAfter(methods: Methods, publisher: ReplicaPublisher): Methods {
  const out: Methods = {};
  for (const [name, m] of Object.entries(methods))
    out[name] = {
      ...m,
      run: async (...args) => {
        try {
          return await m.run(...args);
        } finally {
          publisher.sync(true);
        }
      },
    };
  return out;
}
