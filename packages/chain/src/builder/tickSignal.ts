/**
 * The state of the flashblock timer as the staging passes see it: when it fires, and whether a
 * flashblock fell due and waits in the builder's queue. A staging pass gives way the moment one
 * does (`due`, `whenDue()`): the flashblock stages what is left itself, on time.
 */
export class TickSignal {
  /** When the armed flashblock timer fires (the producer's clock); infinite once it has, or none is. */
  firesAt = Number.POSITIVE_INFINITY;
  /** A flashblock's deadline has passed and its job waits in the queue. */
  due = false;
  private resolve?: () => void;
  private signal?: Promise<void>;

  armed(firesAt: number): void {
    this.firesAt = firesAt;
  }

  disarm(): void {
    this.firesAt = Number.POSITIVE_INFINITY;
  }

  /** The timer fired: a flashblock is due. */
  fire(): void {
    this.firesAt = Number.POSITIVE_INFINITY;
    this.due = true;
    this.resolve?.();
    this.resolve = this.signal = undefined;
  }

  /** The due flashblock started. */
  taken(): void {
    this.due = false;
  }

  /** Settles when a flashblock falls due (at once if one is). */
  whenDue(): Promise<void> {
    if (this.due) return Promise.resolve();
    this.signal ??= new Promise<void>((resolve) => {
      this.resolve = resolve;
    });
    return this.signal;
  }
}
