/**
 * A typed client of the platform's client API (what the platform app uses): Sign-In with Ethereum,
 * pins and opt-ins, the inbox, and the live notification stream (Server-Sent Events read through
 * `fetch`, so it can send the bearer token and resume with Last-Event-ID; it reconnects by itself).
 */
import { WharfApiError } from './errors.js';

export interface PlatformNotification {
  /** ULID; also the stream's event id. */
  id: string;
  appUrl: string;
  title: string;
  message: string;
  targetPath: string | null;
  /** ISO 8601. */
  createdAt: string;
  readAt: string | null;
}

export interface PinnedApp {
  appUrl: string;
  notificationsEnabled: boolean;
  /** ISO 8601. */
  pinnedAt: string;
}

export interface AppState {
  appUrl: string;
  appPinned: boolean;
  notificationsEnabled: boolean;
}

export interface Session {
  token: string;
  /** EIP-55. */
  address: string;
  /** ISO 8601. */
  expiresAt: string;
}

export interface SignInParameters {
  /** The wallet's address, EIP-55 (as the wallet reports it). */
  address: string;
  /** The platform chain's id (31337 by default). */
  chainId: number;
  /** Signs an EIP-191 personal message (e.g. `personal_sign` of an EIP-1193 provider). */
  signMessage: (message: string) => Promise<string>;
  /** Default: the host of `baseUrl`. */
  domain?: string;
  /** Default: `baseUrl`. */
  uri?: string;
  statement?: string;
  /** Default: 10 minutes from now. */
  expirationTime?: Date;
}

export interface StreamHandlers {
  onNotification: (notification: PlatformNotification) => void;
  /** Connection errors; the stream retries after `retryMs` unless the error is a 401. */
  onError?: (error: unknown) => void;
  /** Resume after this event id (the last one seen). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Wait before reconnecting (default: the server's `retry:`, else 2,000 ms). */
  retryMs?: number;
}

export interface PlatformClientOptions {
  /** The platform's base URL, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** A session token from `signIn` (it also sets it). */
  token?: string;
  fetch?: typeof fetch;
}

export interface PlatformClient {
  readonly token: string | undefined;
  setToken(token: string | undefined): void;
  /** POST /api/v1/client/auth/nonce, then /verify with a signed EIP-4361 message. Sets the token. */
  signIn(parameters: SignInParameters): Promise<Session>;
  catalog(): Promise<Array<{ appUrl: string; name: string }>>;
  apps(): Promise<PinnedApp[]>;
  pin(appUrl: string, options?: { notificationsEnabled?: boolean }): Promise<AppState>;
  unpin(appUrl: string): Promise<AppState>;
  setNotifications(appUrl: string, enabled: boolean): Promise<AppState>;
  notifications(query?: { cursor?: string; limit?: number; unread?: boolean }): Promise<{
    notifications: PlatformNotification[];
    unreadCount: number;
    nextCursor?: string;
  }>;
  markRead(which: { ids: string[] } | { all: true }): Promise<{ updated: number; unreadCount: number }>;
  /** Streams delivered notifications until `signal` aborts; resolves then. */
  stream(handlers: StreamHandlers): Promise<void>;
}

/** The EIP-4361 text, in the layout viem's createSiweMessage produces. */
export function formatSiweMessage(fields: {
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
}): string {
  const statement = fields.statement ? `${fields.statement}\n` : '';
  let text =
    `${fields.domain} wants you to sign in with your Ethereum account:\n${fields.address}\n\n${statement}\n` +
    `URI: ${fields.uri}\nVersion: 1\nChain ID: ${fields.chainId}\nNonce: ${fields.nonce}\nIssued At: ${fields.issuedAt.toISOString()}`;
  if (fields.expirationTime) text += `\nExpiration Time: ${fields.expirationTime.toISOString()}`;
  return text;
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let token = options.token;

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await doFetch(`${baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new WharfApiError(
        response.status,
        typeof json?.error === 'string' ? json.error : `HTTP ${response.status}`,
        typeof json?.message === 'string' ? json.message : text.slice(0, 200),
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      );
    }
    return json as T;
  }

  const client: PlatformClient = {
    get token() {
      return token;
    },
    setToken(next) {
      token = next;
    },

    async signIn(parameters) {
      const { nonce } = await call<{ nonce: string }>('POST', '/api/v1/client/auth/nonce');
      const message = formatSiweMessage({
        domain: parameters.domain ?? new URL(baseUrl).host,
        address: parameters.address,
        statement: parameters.statement,
        uri: parameters.uri ?? `${baseUrl}/`,
        chainId: parameters.chainId,
        nonce,
        issuedAt: new Date(),
        expirationTime: parameters.expirationTime ?? new Date(Date.now() + 10 * 60 * 1000),
      });
      const signature = await parameters.signMessage(message);
      const session = await call<Session>('POST', '/api/v1/client/auth/verify', { message, signature });
      token = session.token;
      return session;
    },

    async catalog() {
      return (await call<{ apps: Array<{ appUrl: string; name: string }> }>('GET', '/api/v1/client/catalog'))
        .apps;
    },
    async apps() {
      return (await call<{ apps: PinnedApp[] }>('GET', '/api/v1/client/apps')).apps;
    },
    pin(appUrl, pinOptions = {}) {
      return call('POST', '/api/v1/client/apps/pin', {
        app_url: appUrl,
        ...(pinOptions.notificationsEnabled === undefined
          ? {}
          : { notifications_enabled: pinOptions.notificationsEnabled }),
      });
    },
    unpin(appUrl) {
      return call('POST', '/api/v1/client/apps/unpin', { app_url: appUrl });
    },
    setNotifications(appUrl, enabled) {
      return call('POST', '/api/v1/client/apps/notifications', { app_url: appUrl, enabled });
    },
    notifications(query = {}) {
      const params = new URLSearchParams();
      if (query.cursor !== undefined) params.set('cursor', query.cursor);
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      if (query.unread !== undefined) params.set('unread', String(query.unread));
      const qs = params.toString();
      return call('GET', `/api/v1/client/notifications${qs ? `?${qs}` : ''}`);
    },
    markRead(which) {
      return call('POST', '/api/v1/client/notifications/read', which);
    },

    async stream(handlers) {
      let lastEventId = handlers.lastEventId;
      let retryMs = handlers.retryMs ?? 2000;
      const signal = handlers.signal;
      while (!signal?.aborted) {
        try {
          const response = await doFetch(`${baseUrl}/api/v1/client/notifications/stream`, {
            headers: {
              accept: 'text/event-stream',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
            },
            signal,
          });
          if (response.status === 401) {
            throw new WharfApiError(401, 'Unauthorized', 'the session token is missing or expired');
          }
          if (!response.ok || !response.body)
            throw new WharfApiError(response.status, 'Stream failed', `HTTP ${response.status}`);
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
            let end = buffer.indexOf('\n\n');
            while (end >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              let event = 'message';
              let id: string | undefined;
              const data: string[] = [];
              for (const line of block.split('\n')) {
                if (line === '' || line.startsWith(':')) continue;
                const colon = line.indexOf(':');
                const field = colon < 0 ? line : line.slice(0, colon);
                const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
                if (field === 'event') event = val;
                else if (field === 'data') data.push(val);
                else if (field === 'id') id = val;
                else if (field === 'retry' && /^\d+$/.test(val)) retryMs = handlers.retryMs ?? Number(val);
              }
              if (id !== undefined) lastEventId = id;
              if (event === 'notification' && data.length > 0) {
                handlers.onNotification(JSON.parse(data.join('\n')) as PlatformNotification);
              }
              end = buffer.indexOf('\n\n');
            }
          }
        } catch (error) {
          if (signal?.aborted) return;
          handlers.onError?.(error);
          if (error instanceof WharfApiError && error.status === 401) return;
        }
        if (signal?.aborted) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryMs);
          signal?.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    },
  };
  return client;
}
