/**
 * What the dashboard's screens and panels share once signed in: the session, the dashboard API
 * bound to it and whether it is the operator's. Provided by screens/Dashboard.tsx; read with
 * `useDashboard()` (a file of its own, so that screens never import their parent screen).
 */
import { createContext, useContext } from 'react';
import type { DashboardClient } from '@wharf/sdk';
import type { Session } from '../auth/session.js';

export interface DashboardValue {
  session: Session;
  api: DashboardClient;
  isOperator: boolean;
}

export const DashboardContext = createContext<DashboardValue | undefined>(undefined);

export function useDashboard(): DashboardValue {
  const value = useContext(DashboardContext);
  if (!value) throw new Error('useDashboard outside Dashboard');
  return value;
}
