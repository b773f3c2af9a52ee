/**
 * What the platform app's screens share once a person is signed in: their wallet session and
 * the client API bound to it. Provided by screens/PlatformApp.tsx; screens read it with
 * `usePlatform()` (a file of its own, so that screens never import their parent screen).
 */
import { createContext, useContext } from 'react';
import type { ClientApi } from '../api/clientApi.js';
import type { Session } from '../auth/session.js';

export type WalletSession = Extract<Session, { kind: 'wallet' }>;

export interface Platform {
  session: WalletSession;
  api: ClientApi;
}

export const PlatformContext = createContext<Platform | undefined>(undefined);

export function usePlatform(): Platform {
  const value = useContext(PlatformContext);
  if (!value) throw new Error('usePlatform outside PlatformApp');
  return value;
}
