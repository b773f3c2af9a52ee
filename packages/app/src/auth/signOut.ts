/**
 * Signing out ends the session on the server too (DELETE .../auth/session), so a copied token
 * stops working and its live streams close; the tab forgets it at once either way. An operator
 * "session" is the admin token itself: there is nothing to end on the server.
 */
import { createDashboardClient, createPlatformClient } from '@wharf/sdk';
import { getSession, type Realm, setSession } from './session.js';

export function signOut(realm: Realm): void {
  const session = getSession(realm);
  setSession(realm, null);
  if (session?.kind !== 'wallet') return;
  const { token } = session;
  const client =
    realm === 'client'
      ? createPlatformClient({ baseUrl: '', token })
      : createDashboardClient({ baseUrl: '', role: 'developer', token });
  // Best effort: an expired or already ended session answers 401, which changes nothing here.
  client.signOut().catch(() => {});
}
