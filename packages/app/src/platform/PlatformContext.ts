/**
 * What the platform app's screens share once a person is signed in: their wallet session and
 * the SDK's platform client bound to it. Provided by screens/PlatformApp.tsx; screens read it with
 * `usePlatform()` (a file of its own, so that screens never import their parent screen).
 */
import { createContext, useContext } from 'react';
import type { PlatformClient } from '@wharf/sdk';
import type { Session } from '../auth/session.js';

export type WalletSession = Extract<Session, { kind: 'wallet' }>;

export interface Platform {
  session: WalletSession;
  api: PlatformClient;
}

export const PlatformContext = createContext<Platform | undefined>(undefined);

export function usePlatform(): Platform {
  const value = useContext(PlatformContext);
  if (!value) throw new Error('usePlatform outside PlatformApp');
  return value;
}
