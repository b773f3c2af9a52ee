/**
 * The builder's events, typed. A listener that throws is reported (`onError`) and never stops the
 * others or the builder. Consumers: node.ts (streams, filters, the RPC server's input hold),
 * rpc/subscriptions.ts.
 */
import type { Block } from '@ethereumjs/block';
import type { IncludedTx, PendingSnapshot, SealedChanges } from './pendingBlock.js';

export type SealListener = (block: Block, txs: IncludedTx[]) => void;
export type FlashblockListener = (snapshot: PendingSnapshot) => void;
/** `msLeft`: how long until the flashblock is shown; what a listener prepares must fit in it. */
export type BuiltListener = (snapshot: PendingSnapshot, msLeft: number) => void;
export type SealedChangesListener = (block: Block, changed: SealedChanges) => void;
/**
 * `busy`: a timed flashblock (and the seal after the last) is due and being built, until it is
 * shown. Not busy, `nextAt` (if known) is when the next window begins: called again with it
 * each time the next flashblock is scheduled.
 */
export type BusyListener = (busy: boolean, nextAt?: number) => void;

export interface BuilderEventMap {
  /** A block was sealed: the head moved (newHeads, logs, filters). */
  sealed: SealListener;
  /** A flashblock was shown, index 0 (a block opened) included (streams, newFlashblocks). */
  flashblock: FlashblockListener;
  /**
   * A timed flashblock once it is built, before it is shown at its deadline: time to prepare what
   * will be sent when it is (streams render their messages here, so that publication only sends).
   * Nothing may show it yet. Not emitted for flashblocks shown as soon as built.
   */
  built: BuiltListener;
  /**
   * The builder's busy windows: from a timed flashblock's timer until it has staged what waited,
   * and from its staging stop to its showing (with the seal, after a block's last one); between
   * the two it takes arrivals (decision 0310), and `nextAt` is its staging stop. The RPC server
   * holds new requests in a window, so that the thread is the builder's (requests that arrive
   * after the stop go to the next flashblock anyway). A window ends after half an interval at
   * the latest, so a builder that falls behind never starves RPC.
   */
  busy: BusyListener;
  /** What a sealed block changed, before its listeners run (evm_revert restores it; devControls.ts). */
  sealedChanges: SealedChangesListener;
}

export class BuilderEvents {
  private readonly listeners: { [K in keyof BuilderEventMap]: Set<BuilderEventMap[K]> } = {
    sealed: new Set(),
    flashblock: new Set(),
    built: new Set(),
    busy: new Set(),
    sealedChanges: new Set(),
  };
  /** Settled when the next flashblock of index 1 or more is shown, or by `releaseWaiters()`. */
  private readonly shownWaiters: (() => void)[] = [];

  constructor(private readonly onError?: (e: unknown) => void) {}

  on<K extends keyof BuilderEventMap>(event: K, l: BuilderEventMap[K]): () => void {
    const set = this.listeners[event] as Set<BuilderEventMap[K]>;
    set.add(l);
    return () => set.delete(l);
  }

  emit<K extends keyof BuilderEventMap>(event: K, ...args: Parameters<BuilderEventMap[K]>): void {
    for (const l of this.listeners[event] as Set<(...a: Parameters<BuilderEventMap[K]>) => void>) {
      try {
        l(...args);
      } catch (e) {
        this.onError?.(e);
      }
    }
    if (event === 'flashblock' && (args[0] as PendingSnapshot).index >= 1)
      for (const w of this.shownWaiters.splice(0)) w();
  }

  /**
   * Settles once a flashblock of index 1 or more is shown, or after `capMs`: the sealed block's
   * batch is filled then, not while the staging passes catch up after the seal.
   */
  nextShown(capMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const cap = setTimeout(resolve, capMs);
      cap.unref();
      this.shownWaiters.push(() => {
        clearTimeout(cap);
        resolve();
      });
    });
  }

  /** Settles every `nextShown` waiter (stop). */
  releaseWaiters(): void {
    for (const w of this.shownWaiters.splice(0)) w();
  }
}
