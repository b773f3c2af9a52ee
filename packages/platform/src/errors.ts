/**
 * The one registry of error codes of the notifications service. Every error that leaves the
 * service is a `ServiceError` with one of these codes; `http/errorHandler.ts` turns it into the
 * wire body `{ success: false, error, message }` where `error` is the spec's code column, and the
 * code itself into the `x-wharf-error-code` header.
 * Each code is listed in docs/errors.md.
 */
export const errorCodes = {
  /** 400: a field is missing or breaks its rule; the message names the field and the rule. */
  VALIDATION_FAILED: { status: 400, error: 'Bad Request' },
  /** 400: the request body is not JSON, or not a JSON object. */
  MALFORMED_BODY: { status: 400, error: 'Bad Request' },
  /** 401: the `x-api-key` header is missing or names no live key. */
  API_KEY_INVALID: { status: 401, error: 'Unauthorized' },
  /** 401: the admin token (Authorization: Bearer) is missing or wrong. */
  ADMIN_TOKEN_INVALID: { status: 401, error: 'Unauthorized' },
  /** 401: the client or dashboard session token is missing, expired or unknown (or of the other realm). */
  SESSION_INVALID: { status: 401, error: 'Unauthorized' },
  /** 403: `app_url` is not registered to the key's project. */
  APP_URL_NOT_OWNED: { status: 403, error: 'Forbidden' },
  /** 403: the key's project is not whitelisted for notifications. */
  PROJECT_NOT_WHITELISTED: { status: 403, error: 'Forbidden' },
  /** 404: the project associated with the API key does not exist (deleted). */
  PROJECT_NOT_FOUND: { status: 404, error: 'Not Found' },
  /** 404: no such route, or (admin, client API) no such resource, or (dashboard) not the developer's project. */
  NOT_FOUND: { status: 404, error: 'Not Found' },
  /** 409: the operation conflicts with the current state (an app URL owned by another project). */
  CONFLICT: { status: 409, error: 'Conflict' },
  /** 415: the request body is not `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported Media Type' },
  /** 413: the request body is larger than the server accepts. */
  BODY_TOO_LARGE: { status: 413, error: 'Payload Too Large' },
  /** 429: the client IP spent its request budget; see `Retry-After`. */
  RATE_LIMITED: { status: 429, error: 'Too Many Requests' },
  /** 429: the session (or wallet) already has the most open notification streams allowed. */
  STREAM_LIMIT: { status: 429, error: 'Too Many Requests' },
  /** 403: the app URL was registered to another project before; only the operator may register it. */
  APP_URL_NEEDS_OPERATOR: { status: 403, error: 'Forbidden' },
  /** 408: the request (headers and body) did not arrive within the request timeout. */
  REQUEST_TIMEOUT: { status: 408, error: 'Request Timeout' },
  /** 431: the request's headers are larger than the server accepts. */
  HEADERS_TOO_LARGE: { status: 431, error: 'Request Header Fields Too Large' },
  /** 414: a path parameter (a project id) is longer than any the service issues. */
  URI_TOO_LONG: { status: 414, error: 'URI Too Long' },
  /** 400: the bytes on the connection are not an HTTP request the server can parse. */
  MALFORMED_REQUEST: { status: 400, error: 'Bad Request' },
  /** 500: the preferences store (pins and opt-ins) failed (user status endpoint). */
  PREFERENCES_FAILED: { status: 500, error: 'Internal Server Error' },
  /** 500: an unexpected failure. */
  INTERNAL: { status: 500, error: 'Internal Server Error' },
  /** 503: the database cannot be reached (any route, docs/decisions/0172); retry after `Retry-After`. */
  STORE_UNAVAILABLE: { status: 503, error: 'Service Unavailable' },
  /** 503: the delivery path is unavailable (send endpoint); retry after `Retry-After` seconds. */
  DELIVERY_UNAVAILABLE: { status: 503, error: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; error: string }>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * Every error answer carries its code in this header (the body keeps the spec's shape), so a
 * client such as `@wharf/sdk`'s `WharfApiError.code` can tell VALIDATION_FAILED from
 * MALFORMED_BODY or API_KEY_INVALID from SESSION_INVALID (docs/decisions/0200).
 */
export const errorCodeHeader = 'x-wharf-error-code';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly code: ErrorCode;
  /** Seconds, sent as `Retry-After` (429, 503). */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryAfter = options?.retryAfter;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/** A 400 naming the field and the rule, e.g. `invalid('title', 'must be at most 30 characters')`. */
export function invalid(field: string, rule: string): ServiceError {
  return new ServiceError('VALIDATION_FAILED', `${field} ${rule}`);
}
