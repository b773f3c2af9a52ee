/**
 * Whether an error means "the database cannot be reached now" (it is down, restarting, or the
 * connection broke) rather than a fault of the request or the code. Such errors answer 503 with
 * Retry-After on every route (docs/decisions/0172); anything else stays a 500.
 */

// SQLSTATE classes and codes of connection trouble: 08 (connection exception), 57P01-57P03
// (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
const unavailableSqlStates = /^(08...|57P0[123]|53300)$/;
const unavailableSocketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
// node-postgres reports a dropped socket and a connect timeout with these messages, no code.
const unavailableMessages =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

export function isStoreUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (unavailableSqlStates.test(code) || unavailableSocketCodes.has(code)))
      return true;
    if (unavailableMessages.test(e.message)) return true;
    // AggregateError (a connect to several addresses, e.g. localhost's ::1 and 127.0.0.1).
    if (e instanceof AggregateError && e.errors.some((inner) => isStoreUnavailable(inner))) return true;
  }
  return false;
}
