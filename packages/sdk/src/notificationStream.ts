/**
 * The live inbox: GET /api/v1/client/notifications/stream read through `fetch` (EventSource cannot
 * send the bearer header), parsed by `eventsource-parser` (any line ending, split anywhere across
 * chunks), reconnecting after the server's `retry:` and resuming with `Last-Event-ID` so that
 * nothing sent while the connection was down is missed. A 401 ends it: the session is over.
 */
import { createParser } from 'eventsource-parser';
import { apiErrorOf, WharfApiError } from './errors.js';
import type { Requester } from './http.js';
import type { PlatformNotification } from './types.js';

export type StreamState = 'connecting' | 'live' | 'retrying' | 'closed';

export interface StreamHandlers {
  onNotification: (notification: PlatformNotification) => void;
  /** Connection errors; the stream retries after `retryMs` unless the error is a 401. */
  onError?: (error: unknown) => void;
  /** Where the connection is: connecting, live, retrying (waiting to reconnect), closed (the end). */
  onState?: (state: StreamState) => void;
  /** Resume after this event id (the last one seen). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Wait before reconnecting (default: the server's `retry:`, else 2,000 ms). */
  retryMs?: number;
}

/** Characters one unfinished event may hold before the connection is dropped and reopened. */
const MAX_EVENT_CHARS = 1 << 20;

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Streams until `signal` aborts or the token is refused; resolves then. */
export async function streamNotifications(
  requester: Requester,
  token: () => string | undefined,
  handlers: StreamHandlers,
): Promise<void> {
  let lastEventId = handlers.lastEventId;
  let retryMs = handlers.retryMs ?? 2000;
  const { signal } = handlers;
  const setState = (state: StreamState) => handlers.onState?.(state);
  try {
    while (!signal?.aborted) {
      setState('connecting');
      /** A 429's or 503's Retry-After, in ms. */
      let retryAfterMs = 0;
      try {
        const bearer = token();
        const response = await requester.fetch(`${requester.baseUrl}/api/v1/client/notifications/stream`, {
          headers: {
            accept: 'text/event-stream',
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal,
        });
        if (!response.ok) throw apiErrorOf(response, await response.text());
        if (!response.body)
          throw new WharfApiError(response.status, 'Stream failed', 'the answer has no body');
        setState('live');
        let broken: unknown;
        const parser = createParser({
          maxBufferSize: MAX_EVENT_CHARS,
          onRetry: (ms) => {
            if (handlers.retryMs === undefined) retryMs = ms;
          },
          onError: (error) => {
            if (error.type === 'max-buffer-size-exceeded') broken = error;
          },
          onEvent: (event) => {
            if (event.id !== undefined) lastEventId = event.id;
            if (event.event !== 'notification') return;
            let notification: PlatformNotification;
            try {
              notification = JSON.parse(event.data) as PlatformNotification;
            } catch (error) {
              handlers.onError?.(error);
              return;
            }
            handlers.onNotification(notification);
          },
        });
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
          if (broken) {
            await reader.cancel();
            throw broken;
          }
        }
      } catch (error) {
        if (signal?.aborted) return;
        handlers.onError?.(error);
        if (error instanceof WharfApiError) {
          if (error.status === 401) return;
          retryAfterMs = (error.retryAfter ?? 0) * 1000;
        }
      }
      if (signal?.aborted) return;
      setState('retrying');
      await wait(Math.max(retryMs, retryAfterMs), signal);
    }
  } finally {
    setState('closed');
  }
}
