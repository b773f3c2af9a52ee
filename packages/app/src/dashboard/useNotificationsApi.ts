/**
 * How the project panels reach the notifications API: a developer through the dashboard API
 * (their session; no key needed), the operator with the project's API key held on this page.
 */
import { useMemo } from 'react';
import { createProjectNotificationsApi } from '../api/dashboardApi.js';
import { createDeveloperApi, type NotificationsApi } from '../api/developerApi.js';
import { useDashboard } from './DashboardContext.js';
import { useProjectKey } from './keyVault.js';

export function useNotificationsApi(projectId: string): NotificationsApi | undefined {
  const { session, isOperator } = useDashboard();
  const key = useProjectKey(projectId);
  return useMemo(() => {
    if (!isOperator) return createProjectNotificationsApi(session.token, projectId);
    return key ? createDeveloperApi(key) : undefined;
  }, [isOperator, session.token, projectId, key]);
}
