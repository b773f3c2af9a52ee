/**
 * Clients of the scale-out test: HTTP from a chosen loopback address (127.0.0.0/8 is all local on
 * Linux, so each "client IP" is a real peer address), Sign-In with Ethereum, and an SSE reader.
 */
import http from 'node:http';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One request from `from` (a 127.x.y.z address); rejects when the connection fails. */
export function request(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const url = new URL(path, base);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress: options.from,
        agent: false,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Signs in on `base` (its loopback origin is the SIWE domain) and returns the session token. */
export async function signIn(base: string, account: PrivateKeyAccount): Promise<string> {
  const { nonce } = (await request(base, 'POST', '/api/v1/client/auth/nonce')).body as { nonce: string };
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    domain: new URL(base).host,
    nonce,
    uri: `${base}/`,
    version: '1',
  });
  const verified = await request(base, 'POST', '/api/v1/client/auth/verify', {
    body: { message, signature: await account.signMessage({ message }) },
  });
  if (verified.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(verified.body)}`);
  return verified.body.token as string;
}

export interface StreamEvent {
  id: string;
  title: string;
  at: number;
}

export interface Stream {
  events: StreamEvent[];
  /** Resolves once an event with this title arrived (rejects after `timeoutMs`). */
  waitFor(title: string, timeoutMs: number): Promise<StreamEvent>;
  close(): void;
}

/** Opens the notification stream of a signed-in wallet and collects its notification events. */
export async function openStream(base: string, token: string): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/v1/client/notifications/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  if (!res.ok || !res.headers.get('content-type')?.includes('text/event-stream'))
    throw new Error(`stream answered ${res.status}`);
  const events: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
          }
          const data = fields.get('data');
          if (!data || !fields.get('id')) continue;
          const parsed = JSON.parse(data) as { title?: string };
          if (typeof parsed.title !== 'string') continue;
          events.push({ id: fields.get('id')!, title: parsed.title, at: Date.now() });
          wake?.();
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    events,
    async waitFor(title, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find((e) => e.title === title);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event "${title}" within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}
