/**
 * Sessions of the two areas (platform app, dashboard), kept in sessionStorage: a tab's sign-in
 * ends with the tab, and two tabs may be two different people (handy when testing sends).
 * The signer is kept with the token because the same key is the wallet's account.
 */
import { useSyncExternalStore } from 'react';

export type Signer = { kind: 'dev'; index: number } | { kind: 'key'; privateKey: `0x${string}` };

export type Session =
  | { kind: 'wallet'; token: string; address: `0x${string}`; expiresAt: string; signer: Signer }
  | { kind: 'operator'; token: string };

export type Realm = 'client' | 'dashboard';

const storageKey = (realm: Realm) => `wharf:session:${realm}`;
const listeners = new Set<() => void>();
const cache = new Map<Realm, Session | null>();

function read(realm: Realm): Session | null {
  if (cache.has(realm)) return cache.get(realm) ?? null;
  let session: Session | null = null;
  try {
    const text = sessionStorage.getItem(storageKey(realm));
    session = text ? (JSON.parse(text) as Session) : null;
    if (session?.kind === 'wallet' && Date.parse(session.expiresAt) <= Date.now()) session = null;
  } catch {
    session = null;
  }
  cache.set(realm, session);
  return session;
}

export function setSession(realm: Realm, session: Session | null): void {
  if (session) sessionStorage.setItem(storageKey(realm), JSON.stringify(session));
  else sessionStorage.removeItem(storageKey(realm));
  cache.set(realm, session);
  for (const l of listeners) l();
}

export function getSession(realm: Realm): Session | null {
  return read(realm);
}

export function useSession(realm: Realm): Session | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => read(realm),
  );
}
