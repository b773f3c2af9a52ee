/**
 * The platform client's live stream, byte by byte: CRLF line endings split across chunks (inside
 * an event and between two events) still give each notification once, in order; the next
 * connection resumes with the last id; a dropped connection over a real socket reconnects with
 * Last-Event-ID; a 401 ends the stream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient, type PlatformNotification, type StreamState } from '../src/index.js';

const item = (id: string, title: string): PlatformNotification => ({
  id,
  appUrl: 'https://a.example',
  title,
  message: 'm',
  targetPath: null,
  createdAt: '2026-11-27T00:00:00.000Z',
  readAt: null,
});

const event = (n: PlatformNotification) =>
  `id: ${n.id}\r\nevent: notification\r\ndata: ${JSON.stringify(n)}\r\n\r\n`;

/** A stand-in `fetch` whose answers are streams of exactly these chunks (as bytes). */
function chunkedFetch(connections: string[][]) {
  const lastEventIds: Array<string | undefined> = [];
  const fetchImpl = (async (_input: string | URL, init?: RequestInit) => {
    lastEventIds.push(((init?.headers ?? {}) as Record<string, string>)['last-event-id']);
    const chunks = connections[lastEventIds.length - 1];
    if (!chunks)
      return new Response(JSON.stringify({ success: false, error: 'Unauthorized', message: 'ended' }), {
        status: 401,
        headers: { 'x-wharf-error-code': 'SESSION_INVALID' },
      });
    const encoder = new TextEncoder();
    return new Response(
      new ReadableStream({
        start(controller) {
          for (const c of chunks) controller.enqueue(encoder.encode(c));
          controller.close();
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream' } },
    );
  }) as typeof fetch;
  return { fetchImpl, lastEventIds };
}

describe('createPlatformClient().stream', () => {
  it('a CRLF split across two chunks, inside an event or between events, loses and repeats nothing', async () => {
    const text = `retry: 1\r\n\r\n: keep-alive\r\n\r\n${event(item('01A', 'one'))}${event(item('01B', 'two'))}`;
    const crlfCuts: number[] = [];
    for (let i = 0; i < text.length; i++) if (text[i] === '\r' && text[i + 1] === '\n') crlfCuts.push(i + 1);
    expect(crlfCuts.length).toBeGreaterThan(8);
    for (let cut = 1; cut < text.length; cut++) {
      const { fetchImpl, lastEventIds } = chunkedFetch([
        [text.slice(0, cut), text.slice(cut)],
        [event(item('01C', 'three'))],
      ]);
      const client = createPlatformClient({ baseUrl: 'http://p', token: 'tok', fetch: fetchImpl });
      const got: string[] = [];
      const errors: unknown[] = [];
      await client.stream({ onNotification: (n) => got.push(n.title), onError: (e) => errors.push(e) });
      const where = `cut at ${cut} (${JSON.stringify(text.slice(cut - 2, cut + 2))})`;
      expect(got, where).toEqual(['one', 'two', 'three']);
      expect(lastEventIds, where).toEqual([undefined, '01B', '01C']);
      expect(errors, where).toMatchObject([{ status: 401, code: 'SESSION_INVALID' }]);
    }
  });

  it('the chunk boundary falling between the CR and the LF of the blank line that ends an event', async () => {
    const a = event(item('01A', 'one'));
    const b = event(item('01B', 'two'));
    // "...\r\n\r" | "\nid: 01B..." : the event ends at the CR, the LF must not start another line.
    const { fetchImpl, lastEventIds } = chunkedFetch([
      ['retry: 1\r\n\r\n', a.slice(0, -1), `\n${b.slice(0, 20)}`, b.slice(20)],
    ]);
    const client = createPlatformClient({ baseUrl: 'http://p', token: 'tok', fetch: fetchImpl });
    const got: string[] = [];
    await client.stream({ onNotification: (n) => got.push(n.title) });
    expect(got).toEqual(['one', 'two']);
    expect(lastEventIds).toEqual([undefined, '01B']);
  });
});

describe('the stream over a real socket', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
    let n = 0;
    const server = createServer((req, res) => handler(req, res, n++));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => {
      server.closeAllConnections();
      server.close();
    };
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('sends the bearer token and, after a dropped connection, resumes from Last-Event-ID', async () => {
    const seen: Array<{ auth?: string; lastEventId?: string }> = [];
    const base = await serve((req, res, n) => {
      seen.push({ auth: req.headers.authorization, lastEventId: req.headers['last-event-id'] as string });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (n === 0) {
        res.write(`retry: 10\r\n\r\n${event(item('01A', 'one'))}`);
        setTimeout(() => res.socket?.destroy(), 50);
      } else res.write(`: keep-alive\n\n${event(item('01B', 'two'))}`);
    });
    const client = createPlatformClient({ baseUrl: base, token: 'tok' });
    const stop = new AbortController();
    const got: string[] = [];
    const states: StreamState[] = [];
    const done = client.stream({
      signal: stop.signal,
      onNotification: (n) => got.push(n.title),
      onState: (s) => states.push(s),
    });
    await expect.poll(() => got, { timeout: 5000 }).toEqual(['one', 'two']);
    stop.abort();
    await done;
    expect(seen).toEqual([
      { auth: 'Bearer tok', lastEventId: undefined },
      { auth: 'Bearer tok', lastEventId: '01A' },
    ]);
    expect(states).toEqual(['connecting', 'live', 'retrying', 'connecting', 'live', 'closed']);
  });

  it('stops on a 401 and says so', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'x-wharf-error-code': 'SESSION_INVALID' });
      res.end('{"success":false,"error":"Unauthorized","message":"the session token is unknown or expired"}');
    });
    const client = createPlatformClient({ baseUrl: base, token: 'bad' });
    const errors: unknown[] = [];
    const states: StreamState[] = [];
    await client.stream({
      onNotification: () => {},
      onError: (e) => errors.push(e),
      onState: (s) => states.push(s),
    });
    expect(errors).toMatchObject([
      { status: 401, code: 'SESSION_INVALID', message: 'the session token is unknown or expired' },
    ]);
    expect(states).toEqual(['connecting', 'closed']);
  });
});
