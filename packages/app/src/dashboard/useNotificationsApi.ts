/**
 * How the project panels reach the notifications API: a developer through the dashboard API
 * (their session; no key needed), the operator with the project's API key held on this page.
 * Either way the SDK's users/status/send, with the same answers.
 */
import { createNotificationsClient, type ProjectNotifications } from '@wharf/sdk';
import { useMemo } from 'react';
import { useDashboard } from './DashboardContext.js';
import { useProjectKey } from './keyVault.js';

export function useNotificationsApi(projectId: string): ProjectNotifications | undefined {
  const { api, isOperator } = useDashboard();
  const key = useProjectKey(projectId);
  return useMemo(() => {
    if (!isOperator) return api.projectNotifications(projectId);
    // No retries: a person pressed the button and reads the answer (429 included).
    return key
      ? createNotificationsClient({ baseUrl: location.origin, apiKey: key, retry: { retries: 0 } })
      : undefined;
  }, [isOperator, api, projectId, key]);
}
