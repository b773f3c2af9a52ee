/**
 * A typed client of the notifications API, on `fetch` (Node 18+ and browsers). Answers of 429 and
 * 503 are retried after the server's `Retry-After` (sends are safe to retry: an identical
 * notification within 24 hours is not pushed twice).
 */
import { createRequester, type JsonRequest } from './http.js';
import type {
  AppUser,
  ListUsersParameters,
  SendParameters,
  SendResult,
  SendToAllParameters,
  SendToAllResult,
  UserStatus,
  UserStatusParameters,
  UsersPage,
} from './types.js';

/** Addresses per send request (the API's maximum). */
export const MAX_ADDRESSES_PER_REQUEST = 1000;

export interface RetryOptions {
  /** Retries after a 429 or 503 (default 5; 0 turns retrying off). */
  retries?: number;
  /** Wait when the answer has no Retry-After: this, doubling each time (default 1,000 ms). */
  baseDelayMs?: number;
  /** Longest single wait (default 120,000 ms); a longer Retry-After fails instead. */
  maxDelayMs?: number;
}

export interface NotificationsClientOptions {
  /** The platform's base URL, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** The project's API key (sent as `x-api-key`). */
  apiKey: string;
  retry?: RetryOptions;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Default: setTimeout. Tests pass a fake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface NotificationsClient {
  /** One page of the users who pinned the app. GET /api/v1/notifications/app/users */
  listUsers(parameters: ListUsersParameters, options?: RequestOptions): Promise<UsersPage>;
  /** Every user who pinned the app, page after page. */
  users(
    parameters: Omit<ListUsersParameters, 'cursor' | 'limit'> & { pageSize?: number },
    options?: RequestOptions,
  ): AsyncIterableIterator<AppUser>;
  /** Whether one wallet pinned the app and enabled notifications. POST /api/v1/notifications/app/user/status */
  userStatus(parameters: UserStatusParameters, options?: RequestOptions): Promise<UserStatus>;
  /** Sends to 1 to 1,000 wallets. POST /api/v1/notifications/send */
  send(parameters: SendParameters, options?: RequestOptions): Promise<SendResult>;
  /** Sends to any number of wallets in requests of 1,000 (duplicates removed first, any letter case). */
  sendToAll(parameters: SendToAllParameters, options?: RequestOptions): Promise<SendToAllResult>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function createNotificationsClient(options: NotificationsClientOptions): NotificationsClient {
  const sleep = options.sleep ?? defaultSleep;
  const retries = options.retry?.retries ?? 5;
  const baseDelayMs = options.retry?.baseDelayMs ?? 1000;
  const maxDelayMs = options.retry?.maxDelayMs ?? 120_000;

  const requester = createRequester({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: () => ({ 'x-api-key': options.apiKey }),
  });

  async function request<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal?: AbortSignal,
    query?: JsonRequest['query'],
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const result = await requester.attempt<T>({ method, path, body, signal, query });
      if (result.ok) return result.value;
      const error = result.error;
      const retriable = error.status === 429 || error.status === 503;
      if (!retriable || attempt >= retries) throw error;
      const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : baseDelayMs * 2 ** attempt;
      if (wait > maxDelayMs) throw error;
      await sleep(wait, signal);
    }
  }

  const client: NotificationsClient = {
    listUsers(parameters, requestOptions) {
      return request('GET', '/api/v1/notifications/app/users', undefined, requestOptions?.signal, {
        app_url: parameters.appUrl,
        notification_enabled: parameters.notificationEnabled,
        cursor: parameters.cursor,
        limit: parameters.limit,
      });
    },

    async *users(parameters, requestOptions) {
      let cursor: string | undefined;
      do {
        const page = await client.listUsers(
          {
            appUrl: parameters.appUrl,
            ...(parameters.notificationEnabled === undefined
              ? {}
              : { notificationEnabled: parameters.notificationEnabled }),
            limit: parameters.pageSize ?? 500,
            ...(cursor === undefined ? {} : { cursor }),
          },
          requestOptions,
        );
        yield* page.users;
        cursor = page.nextCursor;
      } while (cursor);
    },

    userStatus(parameters, requestOptions) {
      return request(
        'POST',
        '/api/v1/notifications/app/user/status',
        { app_url: parameters.appUrl, wallet_address: parameters.walletAddress },
        requestOptions?.signal,
      );
    },

    send(parameters, requestOptions) {
      return request(
        'POST',
        '/api/v1/notifications/send',
        {
          app_url: parameters.appUrl,
          wallet_addresses: parameters.walletAddresses,
          title: parameters.title,
          message: parameters.message,
          ...(parameters.targetPath === undefined ? {} : { target_path: parameters.targetPath }),
        },
        requestOptions?.signal,
      );
    },

    async sendToAll(parameters, requestOptions) {
      const { walletAddresses, onBatch, ...rest } = parameters;
      const total: SendToAllResult = {
        success: true,
        results: [],
        sentCount: 0,
        failedCount: 0,
        requests: 0,
      };
      const seen = new Set<string>();
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const result = await client.send({ ...rest, walletAddresses: batch }, requestOptions);
        onBatch?.(result, { index: total.requests, size: batch.length });
        total.requests++;
        total.results.push(...result.results);
        total.sentCount += result.sentCount;
        total.failedCount += result.failedCount;
        total.success &&= result.success;
        batch = [];
      };
      for await (const address of walletAddresses as AsyncIterable<string>) {
        const key = address.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        batch.push(address);
        if (batch.length === MAX_ADDRESSES_PER_REQUEST) await flush();
      }
      await flush();
      return total;
    },
  };
  return client;
}
