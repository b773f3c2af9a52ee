import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxNotification } from '../src/api/clientApi.js';
import { openNotificationStream } from '../src/api/notificationStream.js';

const item = (id: string) => ({
  id,
  appUrl: 'http://localhost:5555',
  title: `T${id}`,
  message: 'm',
  targetPath: null,
  createdAt: new Date().toISOString(),
  readAt: null,
});

let close: (() => void) | undefined;
afterEach(() => close?.());

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => handler(req, res, n++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => {
    server.closeAllConnections();
    server.close();
  };
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('openNotificationStream', () => {
  it('sends the bearer token, and after a dropped connection resumes from Last-Event-ID', async () => {
    const seen: { auth?: string; lastEventId?: string }[] = [];
    const base = await serve((req, res, n) => {
      seen.push({
        auth: req.headers.authorization,
        lastEventId: req.headers['last-event-id'] as string | undefined,
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (n === 0) {
        res.write(`id: 01A\nevent: notification\ndata: ${JSON.stringify(item('01A'))}\n\n`);
        setTimeout(() => res.socket?.destroy(), 50);
      } else {
        res.write(`: keep-alive\n\nid: 01B\nevent: notification\ndata: ${JSON.stringify(item('01B'))}\n\n`);
      }
    });
    const got: InboxNotification[] = [];
    const states: string[] = [];
    const stop = openNotificationStream(
      'tok',
      { onNotification: (x) => got.push(x), onState: (s) => states.push(s) },
      base,
    );
    await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toEqual(['01A', '01B']);
    stop();
    expect(seen[0]).toEqual({ auth: 'Bearer tok', lastEventId: undefined });
    expect(seen[1]).toEqual({ auth: 'Bearer tok', lastEventId: '01A' });
    expect(states).toContain('retrying');
    expect(got[1]).toMatchObject({ title: 'T01B', targetPath: null, readAt: null });
  });

  it('stops and reports when the token is refused', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{}');
    });
    let unauthorized = 0;
    const states: string[] = [];
    openNotificationStream(
      'bad',
      { onNotification: () => {}, onUnauthorized: () => unauthorized++, onState: (s) => states.push(s) },
      base,
    );
    await expect.poll(() => states.at(-1), { timeout: 3000 }).toBe('closed');
    expect(unauthorized).toBe(1);
  });
});
