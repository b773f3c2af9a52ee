/**
 * API keys are shown once. The dashboard keeps a key it just issued (or one pasted back) in
 * memory for this page's life only, so that the test-send and users panels can use it; it is
 * never written to storage.
 */
import { useSyncExternalStore } from 'react';

const keys = new Map<string, string>();
const listeners = new Set<() => void>();

export function rememberKey(projectId: string, apiKey: string | null): void {
  if (apiKey) keys.set(projectId, apiKey);
  else keys.delete(projectId);
  for (const l of listeners) l();
}

export function useProjectKey(projectId: string): string | undefined {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => keys.get(projectId),
  );
}
