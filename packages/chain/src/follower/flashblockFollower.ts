/**
 * Follows the sequencer's `/flashblocks` WebSocket: each message is decoded (senders recovered on
 * the worker thread) as soon as it arrives and applied in stream order through the producer
 * (`applyFlashblock`: re-executed, shown only if it hashes to what the sequencer said). A
 * flashblock of a block this follower has not reached yet is kept (at most `maxBuffered`, the
 * oldest dropped first) and offered again each time the head moves; one of a block already
 * sealed here is dropped. The socket is opened again after a drop, 100 ms later at first, twice
 * as long after each failed attempt up to 5 s.
 *
 *   ws message ─> messageText (Brotli?) ─> parseFlashblock (decode, recover) ─> in order:
 *       producer.applyFlashblock ─> applied | kept for later (unknown parent) | dropped
 */
import WebSocket from 'ws';
import type { FlashblockVerdict, FollowedFlashblock } from '../builder/followedBlocks.js';
import { messageText, parseFlashblock } from './flashblockMessage.js';
import type { FollowedTxDecoder } from './followedTx.js';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export interface FlashblockApplier {
  applyFlashblock(fb: FollowedFlashblock): Promise<FlashblockVerdict>;
  /** Reads what `fb` touches ahead of its turn (never changes anything). */
  warmFollowed?(fb: FollowedFlashblock): void;
}

export interface FlashblockFollowerOptions {
  /** ws:// or wss:// URL of the sequencer's stream. */
  url: string;
  /** Flashblocks kept for blocks this follower has not imported yet. */
  maxBuffered: number;
  /** Largest message accepted (compressed, and once decompressed), bytes. */
  maxMessageBytes: number;
  /** The follower's head number. */
  head: () => bigint;
  /** The stream is ahead of this follower's head: import the sealed blocks now. */
  behind?: () => void;
  /** A message that is not a flashblock, or a failure applying one. */
  onError?: (e: unknown) => void;
  onConnection?: (state: 'open' | 'closed', detail?: string) => void;
}

export class FlashblockFollower {
  private ws?: WebSocket;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer?: NodeJS.Timeout;
  /** Messages are applied one after the other, in arrival order. */
  private chain: Promise<void> = Promise.resolve();
  private buffer: FollowedFlashblock[] = [];
  /** Whether the stream is open now. */
  connected = false;
  /** Connections opened since start, messages received, messages refused as malformed. */
  readonly counts = { connections: 0, messages: 0, malformed: 0, bufferDropped: 0 };
  /** When the last message arrived (ms, Date.now()). */
  lastMessageAt = 0;

  constructor(
    private readonly applier: FlashblockApplier,
    private readonly decoder: FollowedTxDecoder,
    private readonly opts: FlashblockFollowerOptions,
  ) {}

  start(): void {
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.terminate();
    await this.chain;
  }

  /** The head moved (a sealed block imported): kept flashblocks of the next block go in now. */
  headMoved(): void {
    if (!this.buffer.length) return;
    this.chain = this.chain.then(() => this.replay());
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.opts.url, {
      maxPayload: this.opts.maxMessageBytes,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.ws = ws;
    let failure: string | undefined;
    ws.on('open', () => {
      this.connected = true;
      this.counts.connections++;
      this.retryMs = FIRST_RETRY_MS;
      this.opts.onConnection?.('open');
    });
    ws.on('message', (data: Buffer, isBinary: boolean) =>
      this.receive(isBinary ? data : data.toString('utf8')),
    );
    ws.on('error', (e) => {
      failure = e.message;
    });
    ws.on('close', (code, reason) => {
      const was = this.connected;
      this.connected = false;
      if (this.stopped) return;
      if (was)
        this.opts.onConnection?.('closed', failure ?? `closed (${code}${reason.length ? ` ${reason}` : ''})`);
      else this.opts.onConnection?.('closed', failure ?? `refused (${code})`);
      const wait = this.retryMs;
      this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
      this.retryTimer = setTimeout(() => this.connect(), wait);
    });
  }

  private receive(data: Buffer | string): void {
    this.counts.messages++;
    this.lastMessageAt = Date.now();
    // Decoding (and signature recovery) starts at once; application waits its turn.
    const decoded = (async () =>
      parseFlashblock(messageText(data, this.opts.maxMessageBytes), this.decoder))();
    decoded.catch(() => {});
    this.chain = this.chain.then(async () => {
      let fb: FollowedFlashblock;
      try {
        fb = await decoded;
      } catch (e) {
        this.counts.malformed++;
        this.opts.onError?.(e);
        return;
      }
      await this.offer(fb);
    });
  }

  private async offer(fb: FollowedFlashblock): Promise<void> {
    let verdict: FlashblockVerdict;
    try {
      verdict = await this.applier.applyFlashblock(fb);
    } catch (e) {
      this.opts.onError?.(e);
      return;
    }
    if (verdict.kind !== 'unknown-parent' || fb.number <= this.opts.head()) return;
    this.buffer.push(fb);
    if (this.buffer.length > this.opts.maxBuffered) {
      this.buffer.shift();
      this.counts.bufferDropped++;
    }
    this.opts.behind?.();
  }

  /** Offers the kept flashblocks again, in order; keeps those still ahead of the head. */
  private async replay(): Promise<void> {
    const kept = this.buffer;
    this.buffer = [];
    for (const fb of kept) {
      if (fb.number <= this.opts.head()) continue;
      await this.offer(fb);
    }
  }
}
