/**
 * The live inbox: GET /api/v1/client/notifications/stream read with fetch (EventSource cannot
 * send the bearer header), parsed by `SseParser`, reconnecting with backoff and resuming from
 * `Last-Event-ID` so that nothing sent while the connection was down is missed.
 */
import { type InboxNotification, toNotification } from './clientApi.js';
import { SseParser } from './sseParser.js';

export type StreamState = 'connecting' | 'live' | 'retrying' | 'closed';

export interface StreamHandlers {
  onNotification(notification: InboxNotification): void;
  onState?(state: StreamState): void;
  /** The token was refused (401): the session is over. */
  onUnauthorized?(): void;
}

export function openNotificationStream(
  token: string,
  handlers: StreamHandlers,
  /** Where the platform server is; the page's own origin by default. */
  baseUrl = '',
): () => void {
  const controller = new AbortController();
  let lastEventId = '';
  let delay = 500;

  const run = async () => {
    while (!controller.signal.aborted) {
      handlers.onState?.('connecting');
      try {
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
        };
        if (lastEventId) headers['last-event-id'] = lastEventId;
        const response = await fetch(`${baseUrl}/api/v1/client/notifications/stream`, {
          headers,
          signal: controller.signal,
        });
        if (response.status === 401) {
          handlers.onUnauthorized?.();
          break;
        }
        if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
        handlers.onState?.('live');
        delay = 500;
        const parser = new SseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.push(value)) {
            if (event.lastEventId) lastEventId = event.lastEventId;
            if (event.type !== 'message' && event.type !== 'notification') continue;
            const notification = parseData(event.data);
            if (notification) handlers.onNotification(notification);
          }
        }
        if (parser.retry !== undefined) delay = parser.retry;
      } catch {
        if (controller.signal.aborted) break;
      }
      if (controller.signal.aborted) break;
      handlers.onState?.('retrying');
      await sleep(delay, controller.signal);
      delay = Math.min(delay * 2, 10_000);
    }
    handlers.onState?.('closed');
  };
  void run();
  return () => controller.abort();
}

function parseData(data: string): InboxNotification | undefined {
  try {
    const value = JSON.parse(data) as Record<string, unknown>;
    return toNotification(value.notification ?? value);
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
