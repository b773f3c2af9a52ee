/**
 * Signing out ends the session on the server too (DELETE .../auth/session), so a copied token
 * stops working and its live streams close; the tab forgets it at once either way. An operator
 * "session" is the admin token itself: there is nothing to end on the server.
 */
import { requestJson } from '../api/http.js';
import { getSession, type Realm, setSession } from './session.js';

const sessionPath: Record<Realm, string> = {
  client: '/api/v1/client/auth/session',
  dashboard: '/api/v1/dashboard/auth/session',
};

export function signOut(realm: Realm): void {
  const session = getSession(realm);
  setSession(realm, null);
  if (session?.kind !== 'wallet') return;
  // Best effort: an expired or already ended session answers 401, which changes nothing here.
  requestJson(sessionPath[realm], {
    method: 'DELETE',
    headers: { authorization: `Bearer ${session.token}` },
  }).catch(() => {});
}
