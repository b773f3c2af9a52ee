/**
 * The users list's cursor: opaque base64url of the last position and the query it belongs to.
 * A cursor from another app URL or filter, or one that does not decode, is a 400.
 */
import { invalid } from '../errors.js';
import type { WalkPosition } from '../preferences/store.js';

interface CursorBody {
  v: 1;
  /** The app URL and filter the cursor was issued for. */
  u: string;
  e: boolean;
  t: number;
  a: string;
}

export function encodeCursor(
  query: { appUrl: string; enabledOnly: boolean },
  position: WalkPosition,
): string {
  const body: CursorBody = {
    v: 1,
    u: query.appUrl,
    e: query.enabledOnly,
    t: position.sortAt,
    a: position.address,
  };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, query: { appUrl: string; enabledOnly: boolean }): WalkPosition {
  let body: CursorBody;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor', 'is not a cursor this service issued');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    body.v !== 1 ||
    typeof body.u !== 'string' ||
    typeof body.e !== 'boolean' ||
    !Number.isSafeInteger(body.t) ||
    typeof body.a !== 'string'
  ) {
    throw invalid('cursor', 'is not a cursor this service issued');
  }
  if (body.u !== query.appUrl || body.e !== query.enabledOnly) {
    throw invalid('cursor', 'belongs to a different query (app_url or notification_enabled changed)');
  }
  return { sortAt: body.t, address: body.a };
}
