/**
 * One fetch wrapper for every JSON API of the platform server (same origin): it sends JSON,
 * parses the error body `{success:false, error, message}` into an `ApiError`, and never throws
 * anything else for an HTTP answer.
 */

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    /** The error code column (`Bad Request`, `Unauthorized`, ...). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
}

export async function requestJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
  const url = query.size > 0 ? `${path}?${query}` : path;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'Network Error', 'The platform server cannot be reached.');
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const b = (body ?? {}) as { error?: string; message?: string };
    throw new ApiError(
      response.status,
      b.error ?? response.statusText,
      b.message ?? `${response.status} ${response.statusText}`,
    );
  }
  return body as T;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/**
 * Wraps every function of an API object so that a 401 (expired or revoked session) calls
 * `onUnauthorized` before the error goes on to the screen.
 */
export function signOutOn401<T extends Record<string, (...args: any[]) => Promise<unknown>>>(
  api: T,
  onUnauthorized: () => void,
): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(api))
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) onUnauthorized();
        throw error;
      }
    };
  return guarded as T;
}
