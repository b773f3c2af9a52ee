/**
 * Live fan-out of delivered notifications to the recipients' open connections (SSE). In process by
 * default; through Redis pub/sub when several instances serve the same users.
 */
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Notification } from './path.js';

export type NotificationListener = (notification: Notification) => void;

export interface LiveFanout {
  /** Pushes delivered notifications to every instance. Consumer: the delivery path. */
  publish(notifications: readonly Notification[]): Promise<void>;
  /** Listens for one wallet's notifications on this instance. Consumer: the SSE stream. */
  subscribe(walletAddress: string, listener: NotificationListener): () => void;
  /**
   * Calls `listener` when this instance hears the other instances again after losing them (Redis
   * came back), with the time the link was lost: pushes made meanwhile never arrived, so a stream
   * re-reads its inbox from then. Consumer: the SSE stream. Never fires in process.
   */
  onReconnect(listener: (lostSince: number) => void): () => void;
  close(): Promise<void>;
}

export class InProcessFanout implements LiveFanout {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(notifications: readonly Notification[]): Promise<void> {
    this.dispatch(notifications);
  }

  /** Delivers to this instance's listeners. */
  dispatch(notifications: readonly Notification[]): void {
    for (const n of notifications) {
      if (this.emitter.listenerCount(n.walletAddress) > 0) this.emitter.emit(n.walletAddress, n);
    }
  }

  subscribe(walletAddress: string, listener: NotificationListener): () => void {
    this.emitter.on(walletAddress, listener);
    return () => this.emitter.off(walletAddress, listener);
  }

  onReconnect(): () => void {
    return () => {};
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** Fan-out over Redis pub/sub: every instance subscribes to one channel and dispatches locally. */
export class RedisFanout implements LiveFanout {
  private readonly local = new InProcessFanout();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly ready: Promise<unknown>;

  constructor(redisUrl: string, options: { keyPrefix?: string; onError?: (error: Error) => void } = {}) {
    this.channel = `${options.keyPrefix ?? 'wharf:'}notifications`;
    // No offline queue: while Redis is away a publish fails at once (the send is not held); the
    // outbox keeps the push and a relay publishes it when Redis answers again.
    this.publisher = new Redis(redisUrl, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    this.subscriber = new Redis(redisUrl, { lazyConnect: false });
    // ioredis reconnects by itself; without listeners it would print "Unhandled error event".
    const onError = options.onError ?? (() => {});
    this.publisher.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel, payload) => {
      if (channel !== this.channel) return;
      try {
        this.local.dispatch(JSON.parse(payload) as Notification[]);
      } catch {
        // A malformed message from another writer on the channel: ignore it.
      }
    });
    this.ready = this.subscriber.subscribe(this.channel);
    this.ready.catch(onError);
    // ioredis re-subscribes before 'ready' on a reconnection; from then on pushes arrive again.
    this.subscriber.on('close', () => {
      this.lostSince ??= Date.now();
    });
    this.subscriber.on('ready', () => {
      const lostSince = this.lostSince;
      this.lostSince = undefined;
      if (lostSince !== undefined) this.reconnected.emit('reconnect', lostSince);
    });
    this.reconnected.setMaxListeners(0);
  }

  private lostSince?: number;
  private readonly reconnected = new EventEmitter();

  onReconnect(listener: (lostSince: number) => void): () => void {
    this.reconnected.on('reconnect', listener);
    return () => this.reconnected.off('reconnect', listener);
  }

  async publish(notifications: readonly Notification[]): Promise<void> {
    if (notifications.length === 0) return;
    await this.publisher.publish(this.channel, JSON.stringify(notifications));
  }

  subscribe(walletAddress: string, listener: NotificationListener): () => void {
    return this.local.subscribe(walletAddress, listener);
  }

  /** Resolves once the publisher is connected; rejects after `timeoutMs`. */
  async publisherReady(timeoutMs = 5000): Promise<void> {
    if (this.publisher.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.publisher.off('ready', onReady);
        reject(new Error(`Redis is not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.publisher.once('ready', onReady);
    });
  }

  /** Resolves once this instance receives from the channel. */
  whenReady(): Promise<unknown> {
    return this.ready;
  }

  async close(): Promise<void> {
    await this.local.close();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
