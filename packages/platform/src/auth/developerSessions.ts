/**
 * Developers' sessions on the dashboard API: Sign-In with Ethereum with the client API's machinery
 * (the same nonces, message checks and signature verifiers, the same `sessions` table), but a
 * separate realm. A dashboard token is stored as the SHA-256 of `wharf-dashboard:` + token, so a
 * client session token is never a dashboard token and the other way round (each is refused with
 * 401 where it does not belong). Sessions last 24 hours at most.
 */
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { SessionsRepository } from '../db/repositories/sessions.js';
import { ServiceError } from '../errors.js';
import { hashSecret } from './apiKeys.js';
import { acceptSignIn, type SignatureVerifier } from './siwe.js';

export interface DeveloperSessionDeps {
  sessions: SessionsRepository;
  verifier: SignatureVerifier;
  /** The platform chain's id, which the SIWE message must name. */
  chainId: number;
  /** The origins the SIWE message may name (the platform's public origin). */
  publicOrigins: () => readonly string[];
  sessionTtlMs: number;
  clock: () => number;
}

/** The longest a dashboard session lives. */
export const developerSessionMaxTtlMs = 24 * 60 * 60 * 1000;

export interface DeveloperSession {
  /** The developer's wallet address, EIP-55: the owner of their projects. */
  address: string;
  tokenHash: string;
}

/** The stored form of a dashboard token (domain-separated from client session tokens). */
export function developerTokenHash(token: string): string {
  return hashSecret(`wharf-dashboard:${token}`);
}

/** Checks an EIP-4361 message and its signature; answers a dashboard bearer token. */
export async function signInDeveloper(
  deps: DeveloperSessionDeps,
  body: unknown,
): Promise<{ token: string; address: string; expiresAt: string }> {
  const { parsed, now } = await acceptSignIn(deps, body);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + Math.min(deps.sessionTtlMs, developerSessionMaxTtlMs);
  const address = getAddress(parsed.address.toLowerCase());
  await deps.sessions.addSession(developerTokenHash(token), address, now, expiresAt);
  return { token, address, expiresAt: new Date(expiresAt).toISOString() };
}

/** Ends the session (sign-out): its token answers 401 from now on. */
export async function signOutDeveloper(
  deps: Pick<DeveloperSessionDeps, 'sessions'>,
  session: DeveloperSession,
): Promise<{ success: true }> {
  await deps.sessions.deleteSession(session.tokenHash);
  return { success: true };
}

/** The developer behind `Authorization: Bearer <dashboard token>`; 401 when missing or expired. */
export async function authenticateDeveloper(
  deps: Pick<DeveloperSessionDeps, 'sessions' | 'clock'>,
  header: string | string[] | undefined,
): Promise<DeveloperSession> {
  const token =
    typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
  if (!token)
    throw new ServiceError('SESSION_INVALID', 'Authorization: Bearer <dashboard session token> is required');
  const tokenHash = developerTokenHash(token);
  const session = await deps.sessions.findSession(tokenHash, deps.clock());
  if (!session)
    throw new ServiceError(
      'SESSION_INVALID',
      'the dashboard session token is unknown or expired; sign in again',
    );
  return { address: session.address, tokenHash };
}
