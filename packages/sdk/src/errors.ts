/** An error answer of the notifications API: `{ success: false, error, message }` and the status. */
export class WharfApiError extends Error {
  override readonly name = 'WharfApiError';

  constructor(
    /** HTTP status: 400, 401, 403, 404, 429, 500 or 503. */
    readonly status: number,
    /** The spec's code, e.g. 'Bad Request', 'Too Many Requests'. */
    readonly error: string,
    message: string,
    /** Seconds from `Retry-After` (429 and 503), when the server sent it. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}
