/**
 * A real HTTP receiver for webhook tests: records every request (headers and raw body) and answers
 * a chosen status; it can go down (its socket closed: connection refused) and come back on the
 * same port.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  signature: string;
  body: string;
  json: {
    id: string;
    event: string;
    appUrl: string;
    walletAddress: string;
    notificationsEnabled: boolean;
    timestamp: string;
  };
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status answered from now on (default 200); 'hang' never answers. */
  answer: number | 'hang';
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
}

export async function startReceiver(): Promise<Receiver> {
  let server: Server | undefined;
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    answer: 200,
    async down() {
      for (const r of hanging) r.destroy();
      hanging.clear();
      const s = server;
      server = undefined;
      if (s) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
    async up() {
      const port = receiver.url ? Number(new URL(receiver.url).port) : 0;
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (receiver.answer === 'hang') {
            hanging.add(res);
            return;
          }
          if (receiver.answer >= 200 && receiver.answer < 300)
            received.push({
              signature: String(req.headers['x-wharf-signature'] ?? ''),
              body,
              json: JSON.parse(body),
              at: Date.now(),
            });
          res.statusCode = receiver.answer;
          res.end('ok');
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
      server = s;
      receiver.url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/hooks`;
    },
    close: () => receiver.down(),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} webhook(s), received ${received.length} in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received.slice(0, count);
    },
  };
  await receiver.up();
  return receiver;
}

/** The server's signature checked independently of its code: t=<s>,v1=<hex HMAC-SHA256(secret, "t.body")>. */
export function signedBy(secret: string, header: string, body: string): boolean {
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const got = Buffer.from(p.slice(3), 'hex');
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}
