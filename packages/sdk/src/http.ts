/**
 * The one JSON request function of the SDK's clients: sends JSON, reads JSON, and turns every
 * error answer into a `WharfApiError` (status, the spec's `error`, the message, `Retry-After`, the
 * platform's code). Network failures stay the `fetch` error (a `TypeError`), so a caller can tell
 * "no answer" from "an error answer".
 */
import { apiErrorOf, type WharfApiError } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface JsonRequest {
  method: HttpMethod;
  /** The path after the base URL, starting with '/'. */
  path: string;
  /** Undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON when defined. */
  body?: unknown;
  signal?: AbortSignal;
}

export interface Requester {
  readonly baseUrl: string;
  /** The parsed JSON answer (undefined for an empty body); throws `WharfApiError` on an error answer. */
  json<T>(request: JsonRequest): Promise<T>;
  /** Like `json` but returns the error instead of throwing it (for clients that retry). */
  attempt<T>(request: JsonRequest): Promise<{ ok: true; value: T } | { ok: false; error: WharfApiError }>;
  readonly fetch: typeof fetch;
}

export interface RequesterOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  /** Headers of every request (read per request: a token may change). */
  headers: () => Record<string, string>;
}

/** An absolute base URL without a trailing slash ('' stays '': same origin in a browser). */
function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

export function createRequester(options: RequesterOptions): Requester {
  const baseUrl = trimBaseUrl(options.baseUrl);
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function attempt<T>(
    request: JsonRequest,
  ): Promise<{ ok: true; value: T } | { ok: false; error: WharfApiError }> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) query.set(key, String(value));
    const qs = query.toString();
    const response = await doFetch(`${baseUrl}${request.path}${qs ? `?${qs}` : ''}`, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...options.headers(),
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: request.signal,
    });
    const text = await response.text();
    if (!response.ok) return { ok: false, error: apiErrorOf(response, text) };
    let value: T;
    try {
      value = (text ? JSON.parse(text) : undefined) as T;
    } catch {
      value = undefined as T;
    }
    return { ok: true, value };
  }

  return {
    baseUrl,
    fetch: doFetch,
    attempt,
    async json<T>(request: JsonRequest) {
      const result = await attempt<T>(request);
      if (!result.ok) throw result.error;
      return result.value;
    },
  };
}
