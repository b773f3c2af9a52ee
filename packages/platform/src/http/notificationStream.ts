/**
 * The client API's live inbox over Server-Sent Events, and the bounds on it (issue 29, finding 7):
 *
 * - at most `perSession` open streams per session token and `perAddress` per wallet on this
 *   instance (a 6th is 429 `STREAM_LIMIT`);
 * - a stream ends when its session does: at sign-out on this instance at once, at its expiry
 *   (a timer), and when the session is gone from the store (checked at every heartbeat, so a
 *   sign-out on another instance or a sweep ends it within one heartbeat);
 * - a reader that falls behind is dropped: when the bytes queued for its socket exceed
 *   `maxBufferBytes`, the connection is destroyed (the client resumes with Last-Event-ID).
 *
 * One connection: subscribe first (buffering), replay what was missed after Last-Event-ID from the
 * inbox, then flush the buffer (skipping what the replay sent) and go live.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboxRepository } from '../db/repositories/inbox.js';
import type { LiveFanout } from '../delivery/fanout.js';
import type { Notification } from '../delivery/path.js';
import { type ClientSession, toInboxItem } from '../domain/client.js';
import { ServiceError } from '../errors.js';
import { RecentIds, ulidFloor } from './streamResync.js';

export interface StreamLimits {
  /** Open streams per session token (per instance). */
  perSession: number;
  /** Open streams per wallet address (per instance). */
  perAddress: number;
  /** Bytes queued for one reader before it is dropped. */
  maxBufferBytes: number;
  /** Milliseconds between keep-alive comments (and session re-checks). */
  heartbeatMs: number;
}

interface OpenStream {
  session: ClientSession;
  end(): void;
}

/** The open streams of this instance, by session and by address. */
export class StreamRegistry {
  private readonly all = new Set<OpenStream>();

  constructor(private readonly limits: StreamLimits) {}

  get size(): number {
    return this.all.size;
  }

  /** Refuses (429) a stream past the session's or the address's cap. */
  admit(session: ClientSession): void {
    let bySession = 0;
    let byAddress = 0;
    for (const s of this.all) {
      if (s.session.tokenHash === session.tokenHash) bySession++;
      if (s.session.address === session.address) byAddress++;
    }
    if (bySession >= this.limits.perSession)
      throw new ServiceError(
        'STREAM_LIMIT',
        `at most ${this.limits.perSession} open notification streams per session; close one first`,
      );
    if (byAddress >= this.limits.perAddress)
      throw new ServiceError(
        'STREAM_LIMIT',
        `at most ${this.limits.perAddress} open notification streams per wallet; close one first`,
      );
  }

  add(stream: OpenStream): void {
    this.all.add(stream);
  }

  delete(stream: OpenStream): void {
    this.all.delete(stream);
  }

  /** Ends every stream of this session (sign-out). */
  endSession(tokenHash: string): void {
    for (const s of [...this.all]) if (s.session.tokenHash === tokenHash) s.end();
  }

  endAll(): void {
    for (const s of [...this.all]) s.end();
  }
}

/** Sends created this long before the link to Redis was lost are re-read too (clock skew, slow commits). */
const resyncMarginMs = 10_000;

/** setTimeout's longest delay; a longer session is re-armed when it fires. */
const maxTimerMs = 2 ** 31 - 1;

export function streamNotifications(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    session: ClientSession;
    lastEventId?: string;
    inbox: InboxRepository;
    fanout: LiveFanout;
    registry: StreamRegistry;
    limits: StreamLimits;
    /** Whether the session still exists in the store. */
    sessionAlive: () => Promise<boolean>;
    clock: () => number;
  },
): void {
  const { session, registry, limits } = options;
  registry.admit(session);
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });

  let closed = false;
  const stream: OpenStream = {
    session,
    end: () => {
      if (closed) return;
      closed = true;
      raw.end();
      raw.socket?.destroy();
    },
  };
  registry.add(stream);

  /** Writes a frame; drops the reader when its socket's queue passes the bound. */
  const send = (frame: string) => {
    if (closed) return;
    raw.write(frame);
    if (raw.writableLength > limits.maxBufferBytes) {
      request.log.info(
        { queued: raw.writableLength, limit: limits.maxBufferBytes },
        'notification stream reader fell behind; dropped',
      );
      closed = true;
      raw.destroy();
    }
  };
  // Written once per id: the outbox relay may push a notification again (docs/decisions/0170).
  const written = new RecentIds();
  const write = (n: Notification) => {
    if (written.has(n.id)) return;
    written.add(n.id);
    send(`id: ${n.id}\nevent: notification\ndata: ${JSON.stringify(toInboxItem(n))}\n\n`);
  };
  send('retry: 2000\n\n');

  // Pushes made while this instance had lost Redis never arrive: re-read the inbox from then.
  const openedAt = options.clock();
  const offReconnect = options.fanout.onReconnect((lostSince) => {
    const from = ulidFloor(Math.max(openedAt, lostSince - resyncMarginMs));
    const after = options.lastEventId && options.lastEventId > from ? options.lastEventId : from;
    options.inbox
      .since(session.address, after, 500)
      .then((missed) => {
        for (const n of missed) write(n);
      })
      .catch((error) => request.log.warn({ err: error }, 'notification stream resync failed'));
  });

  let replaying = true;
  const buffered: Notification[] = [];
  const unsubscribe = options.fanout.subscribe(session.address, (n) => {
    if (replaying) {
      buffered.push(n);
      // The replay is slow and the fan-out is not: the buffer counts against the same bound.
      if (buffered.length > 10_000) {
        closed = true;
        raw.destroy();
      }
    } else write(n);
  });

  const heartbeat = setInterval(() => {
    send(': keep-alive\n\n');
    options
      .sessionAlive()
      .then((alive) => {
        if (!alive) stream.end();
      })
      .catch((error) => request.log.warn({ err: error }, 'session re-check failed'));
  }, limits.heartbeatMs);
  heartbeat.unref();
  let expiry: NodeJS.Timeout | undefined;
  const armExpiry = () => {
    const left = session.expiresAt - options.clock();
    if (left <= 0) return stream.end();
    expiry = setTimeout(armExpiry, Math.min(left, maxTimerMs));
    expiry.unref();
  };
  armExpiry();

  raw.on('close', () => {
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    unsubscribe();
    offReconnect();
    registry.delete(stream);
  });

  (async () => {
    const replayed = new Set<string>();
    let after = options.lastEventId;
    while (after !== undefined && !closed) {
      const missed = await options.inbox.since(session.address, after, 500);
      for (const n of missed) {
        replayed.add(n.id);
        write(n);
      }
      after = missed.length === 500 ? missed[missed.length - 1]!.id : undefined;
    }
    replaying = false;
    buffered.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const n of buffered) if (!replayed.has(n.id)) write(n);
    buffered.length = 0;
  })().catch((error) => {
    request.log.warn({ err: error }, 'notification stream replay failed');
    raw.end();
  });
}
