/**
 * The SDK's errors, one registry (listed in docs/errors.md): `WharfApiError` for every error
 * answer of the platform, with the platform's code from `apiErrorCodes`, and
 * `WebhookVerificationError` with the reasons of `webhookVerificationReasons`.
 */

/**
 * The codes of the platform's error registry (packages/platform/src/errors.ts), each with its HTTP
 * status and the spec's `error` label. The platform sends the code in the `x-wharf-error-code`
 * header of every error answer; `WharfApiError.code` holds it.
 */
export const apiErrorCodes = {
  /** A field is missing or breaks its rule; the message names the field and the rule. */
  VALIDATION_FAILED: { status: 400, error: 'Bad Request' },
  /** The body is not JSON, or not a JSON object. */
  MALFORMED_BODY: { status: 400, error: 'Bad Request' },
  /** The bytes are not HTTP, or the URL does not decode. */
  MALFORMED_REQUEST: { status: 400, error: 'Bad Request' },
  /** `x-api-key` is missing or names no live key. */
  API_KEY_INVALID: { status: 401, error: 'Unauthorized' },
  /** The admin token (Authorization: Bearer) is missing or wrong. */
  ADMIN_TOKEN_INVALID: { status: 401, error: 'Unauthorized' },
  /** The client or dashboard session is missing, expired or unknown; or a sign-in failed. */
  SESSION_INVALID: { status: 401, error: 'Unauthorized' },
  /** `app_url` is not registered to the key's project. */
  APP_URL_NOT_OWNED: { status: 403, error: 'Forbidden' },
  /** The project is not whitelisted for notifications. */
  PROJECT_NOT_WHITELISTED: { status: 403, error: 'Forbidden' },
  /** The app URL was another project's before; only the operator may register it. */
  APP_URL_NEEDS_OPERATOR: { status: 403, error: 'Forbidden' },
  /** The project of the API key was deleted. */
  PROJECT_NOT_FOUND: { status: 404, error: 'Not Found' },
  /** No such route or resource (or, on the dashboard, not your project). */
  NOT_FOUND: { status: 404, error: 'Not Found' },
  /** The request did not arrive within the request timeout. */
  REQUEST_TIMEOUT: { status: 408, error: 'Request Timeout' },
  /** The operation conflicts with the current state (an app URL of another project; not pinned). */
  CONFLICT: { status: 409, error: 'Conflict' },
  /** The body is larger than the server accepts. */
  BODY_TOO_LARGE: { status: 413, error: 'Payload Too Large' },
  /** A path parameter is longer than any the platform issues. */
  URI_TOO_LONG: { status: 414, error: 'URI Too Long' },
  /** The body is not `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported Media Type' },
  /** The client IP (or session) spent its request budget; see `retryAfter`. */
  RATE_LIMITED: { status: 429, error: 'Too Many Requests' },
  /** The session or wallet has the most open notification streams allowed. */
  STREAM_LIMIT: { status: 429, error: 'Too Many Requests' },
  /** The request headers are larger than the server accepts. */
  HEADERS_TOO_LARGE: { status: 431, error: 'Request Header Fields Too Large' },
  /** The preferences store failed (user status). */
  PREFERENCES_FAILED: { status: 500, error: 'Internal Server Error' },
  /** An unexpected failure on the server. */
  INTERNAL: { status: 500, error: 'Internal Server Error' },
  /** The delivery path is unavailable (send); retry after `retryAfter`. */
  DELIVERY_UNAVAILABLE: { status: 503, error: 'Service Unavailable' },
  /** The platform's database cannot be reached; retry after `retryAfter`. */
  STORE_UNAVAILABLE: { status: 503, error: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; error: string }>;

export type ApiErrorCode = keyof typeof apiErrorCodes;

/** The response header that carries the platform's error code. */
export const ERROR_CODE_HEADER = 'x-wharf-error-code';

/** An error answer of the platform: `{ success: false, error, message }`, its status and code. */
export class WharfApiError extends Error {
  override readonly name = 'WharfApiError';

  constructor(
    /** HTTP status: 400, 401, 403, 404, 409, 429, 500, 503, ... */
    readonly status: number,
    /** The spec's code, e.g. 'Bad Request', 'Too Many Requests'. */
    readonly error: string,
    message: string,
    /** Seconds from `Retry-After` (429 and 503), when the server sent it. */
    readonly retryAfter?: number,
    /**
     * The platform's error code (`x-wharf-error-code`), e.g. 'VALIDATION_FAILED' or
     * 'API_KEY_INVALID'; undefined when the answer did not come from the platform (a proxy).
     */
    readonly code?: ApiErrorCode,
  ) {
    super(message);
  }
}

/** Builds the `WharfApiError` of an error answer (its body already read as text). */
export function apiErrorOf(response: Response, text: string): WharfApiError {
  let json: { error?: unknown; message?: unknown } | undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const header = response.headers.get(ERROR_CODE_HEADER);
  const code = header !== null && Object.hasOwn(apiErrorCodes, header) ? (header as ApiErrorCode) : undefined;
  return new WharfApiError(
    response.status,
    typeof json?.error === 'string' ? json.error : response.statusText || `HTTP ${response.status}`,
    typeof json?.message === 'string' ? json.message : text.slice(0, 200) || `HTTP ${response.status}`,
    parseRetryAfter(response.headers.get('retry-after')),
    code,
  );
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Why `verifyWebhook` refused a request: `WebhookVerificationError.reason`. */
export const webhookVerificationReasons = {
  /** No `X-Wharf-Signature` header. */
  'missing-header': 'the X-Wharf-Signature header is missing',
  /** The header is not `t=<unix seconds>,v1=<64 hex>[,v1=...]`. */
  'malformed-header': 'X-Wharf-Signature must be t=<unix seconds>,v1=<hex>',
  /** `t` is further from now than the tolerance (a replay). */
  stale: "the signature's time is too far from now",
  /** No `v1=` matches the body and secret (forged, altered, wrong secret). */
  'bad-signature': 'the signature does not match the body and secret',
  /** The signature matches but the body is not JSON. */
  'malformed-body': 'the body is not JSON',
} as const;

export type WebhookVerificationReason = keyof typeof webhookVerificationReasons;

/** Why a webhook was refused. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
