/**
 * The client API's services (the platform app): Sign-In with Ethereum, pins and opt-ins (the
 * spec's state table), and the inbox. Every operation acts on the signed-in wallet only.
 *
 *   pin    -> pinned, notifications enabled (or disabled when asked)     idempotent
 *   unpin  -> not pinned (notifications forced off)                       idempotent
 *   enable / disable while pinned -> that state; while not pinned -> 409  idempotent
 */
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/apiKeys.js';
import { acceptSignIn, type SignatureVerifier } from '../auth/siwe.js';
import type { InboxRepository } from '../db/repositories/inbox.js';
import type { ProjectsRepository } from '../db/repositories/projects.js';
import type { SessionsRepository } from '../db/repositories/sessions.js';
import type { Notification } from '../delivery/path.js';
import { invalid, ServiceError } from '../errors.js';
import type { PreferencesStore } from '../preferences/store.js';
import { normalizeAppUrl } from './appUrl.js';
import { limits } from './limits.js';

export interface ClientDeps {
  projects: ProjectsRepository;
  preferences: PreferencesStore;
  inbox: InboxRepository;
  sessions: SessionsRepository;
  verifier: SignatureVerifier;
  chainId: number;
  /** The origins a SIWE message may name (the platform's public origin). */
  publicOrigins: () => readonly string[];
  sessionTtlMs: number;
  clock: () => number;
}

/** A notification as the platform app sees it. */
export interface InboxItem {
  id: string;
  appUrl: string;
  title: string;
  message: string;
  targetPath: string | null;
  /** ISO 8601. */
  createdAt: string;
  readAt: string | null;
}

export function toInboxItem(n: Notification): InboxItem {
  return {
    id: n.id,
    appUrl: n.appUrl,
    title: n.title,
    message: n.message,
    targetPath: n.targetPath,
    createdAt: new Date(n.createdAt).toISOString(),
    readAt: n.readAt === null ? null : new Date(n.readAt).toISOString(),
  };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

export async function signIn(
  deps: ClientDeps,
  body: unknown,
): Promise<{ token: string; address: string; expiresAt: string }> {
  const { parsed, now } = await acceptSignIn(deps, body);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + deps.sessionTtlMs;
  await deps.sessions.addSession(hashSecret(token), parsed.address, now, expiresAt);
  return { token, address: parsed.address, expiresAt: new Date(expiresAt).toISOString() };
}

export interface ClientSession {
  address: string;
  tokenHash: string;
  /** Unix ms; the stream closes then. */
  expiresAt: number;
}

export async function authenticateSession(
  deps: Pick<ClientDeps, 'sessions' | 'clock'>,
  token: string | undefined,
): Promise<ClientSession> {
  if (!token) throw new ServiceError('SESSION_INVALID', 'Authorization: Bearer <session token> is required');
  const tokenHash = hashSecret(token);
  const session = await deps.sessions.findSession(tokenHash, deps.clock());
  if (!session)
    throw new ServiceError('SESSION_INVALID', 'the session token is unknown or expired; sign in again');
  return { address: session.address, tokenHash, expiresAt: session.expiresAt };
}

/** Ends the session on the server (sign-out): its token answers 401 from now on. */
export async function signOut(deps: Pick<ClientDeps, 'sessions'>, session: ClientSession) {
  await deps.sessions.deleteSession(session.tokenHash);
  return { success: true as const };
}

async function registeredAppUrl(deps: Pick<ClientDeps, 'projects'>, raw: string): Promise<string> {
  const result = normalizeAppUrl(raw);
  if (!result.ok) throw invalid('app_url', result.reason);
  if ((await deps.projects.appUrlOwner(result.appUrl)) === undefined) {
    throw new ServiceError('NOT_FOUND', `${result.appUrl} is not a registered app`);
  }
  return result.appUrl;
}

/**
 * The 404 of an app URL that is valid but not registered, checked before the rest of the body
 * (the routes' preValidation): a body whose app_url is itself broken is left to the schema.
 */
export async function requireRegisteredAppUrl(
  deps: Pick<ClientDeps, 'projects'>,
  body: unknown,
): Promise<void> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const raw = (body as Record<string, unknown>).app_url;
  if (typeof raw !== 'string' || !normalizeAppUrl(raw).ok) return;
  await registeredAppUrl(deps, raw);
}

export interface AppState {
  appUrl: string;
  appPinned: boolean;
  notificationsEnabled: boolean;
}

async function stateOf(deps: ClientDeps, appUrl: string, address: string): Promise<AppState> {
  const status = (await deps.preferences.statusOf(appUrl, [address])).get(address);
  const appPinned = status?.pinned === true;
  return { appUrl, appPinned, notificationsEnabled: appPinned && status?.notificationsEnabled === true };
}

export async function pinApp(
  deps: ClientDeps,
  address: string,
  body: { app_url: string; notifications_enabled?: boolean },
): Promise<AppState> {
  const appUrl = await registeredAppUrl(deps, body.app_url);
  const enabled = body.notifications_enabled;
  await deps.preferences.pin(appUrl, address, {
    ...(enabled === undefined ? {} : { notificationsEnabled: enabled }),
    now: deps.clock(),
  });
  return stateOf(deps, appUrl, address);
}

export async function unpinApp(
  deps: ClientDeps,
  address: string,
  body: { app_url: string },
): Promise<AppState> {
  const appUrl = await registeredAppUrl(deps, body.app_url);
  await deps.preferences.unpin(appUrl, address, deps.clock());
  return { appUrl, appPinned: false, notificationsEnabled: false };
}

export async function setAppNotifications(
  deps: ClientDeps,
  address: string,
  body: { app_url: string; enabled: boolean },
): Promise<AppState> {
  const appUrl = await registeredAppUrl(deps, body.app_url);
  const outcome = await deps.preferences.setNotifications(appUrl, address, body.enabled, deps.clock());
  if (outcome === 'not-pinned') {
    throw new ServiceError('CONFLICT', `pin ${appUrl} before changing its notifications`);
  }
  return { appUrl, appPinned: true, notificationsEnabled: body.enabled };
}

export async function pinnedApps(deps: ClientDeps, address: string) {
  const apps = await deps.preferences.pinnedApps(address);
  return {
    apps: apps.map((a) => ({
      appUrl: a.appUrl,
      notificationsEnabled: a.notificationsEnabled,
      pinnedAt: new Date(a.pinnedAt).toISOString(),
    })),
  };
}

interface InboxCursor {
  v: 1;
  b: string;
  u: boolean;
}

export async function listInbox(
  deps: ClientDeps,
  address: string,
  query: { limit?: number; unread?: boolean; cursor?: string },
): Promise<{ notifications: InboxItem[]; unreadCount: number; nextCursor?: string }> {
  const source = query;
  const limit = Math.min(query.limit ?? limits.inboxPageDefault, limits.inboxPageMax);
  const unreadOnly = query.unread === true;
  let before: string | undefined;
  if (typeof source.cursor === 'string' && source.cursor !== '') {
    let cursor: InboxCursor;
    try {
      cursor = JSON.parse(Buffer.from(source.cursor, 'base64url').toString('utf8'));
    } catch {
      throw invalid('cursor', 'is not a cursor this service issued');
    }
    if (cursor?.v !== 1 || typeof cursor.b !== 'string')
      throw invalid('cursor', 'is not a cursor this service issued');
    if (cursor.u !== unreadOnly) throw invalid('cursor', 'belongs to a different query (unread changed)');
    before = cursor.b;
  }
  const rows = await deps.inbox.list(address, { before, limit: limit + 1, unreadOnly });
  const page = rows.slice(0, limit);
  const unreadCount = await deps.inbox.unreadCount(address);
  const result: { notifications: InboxItem[]; unreadCount: number; nextCursor?: string } = {
    notifications: page.map(toInboxItem),
    unreadCount,
  };
  const last = page[page.length - 1];
  if (rows.length > limit && last) {
    const cursor: InboxCursor = { v: 1, b: last.id, u: unreadOnly };
    result.nextCursor = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  }
  return result;
}

export async function markInboxRead(
  deps: ClientDeps,
  address: string,
  body: unknown,
): Promise<{ updated: number; unreadCount: number }> {
  const source = objectBody(body);
  let updated: number;
  if (source.all === true) {
    updated = await deps.inbox.markRead(address, { all: true }, deps.clock());
  } else if (Array.isArray(source.ids)) {
    if (source.ids.length > limits.readIdsMax)
      throw invalid('ids', `must have at most ${limits.readIdsMax.toLocaleString('en-US')} entries`);
    source.ids.forEach((id, i) => {
      if (typeof id !== 'string') throw invalid(`ids[${i}]`, 'must be a notification id');
    });
    updated = await deps.inbox.markRead(address, { ids: source.ids as string[] }, deps.clock());
  } else {
    throw invalid('ids', 'is required (an array of notification ids), or all: true');
  }
  return { updated, unreadCount: await deps.inbox.unreadCount(address) };
}
