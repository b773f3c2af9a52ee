/**
 * The wallet's `approve` callback, turned into a queue of dialogs: each request waits here until
 * the person answers in `ApprovalDialog`. The wallet allows one pending approval per origin, so
 * the queue only grows with several mini apps asking at once.
 */
import { useSyncExternalStore } from 'react';
import type { ApprovalRequest } from '@wharf/wallet';

interface Pending {
  request: ApprovalRequest;
  resolve: (answer: boolean) => void;
}

let queue: Pending[] = [];
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

export function askPerson(request: ApprovalRequest): Promise<boolean> {
  return new Promise((resolve) => {
    queue = [...queue, { request, resolve }];
    emit();
  });
}

export function answer(request: ApprovalRequest, yes: boolean): void {
  const item = queue.find((p) => p.request === request);
  queue = queue.filter((p) => p !== item);
  emit();
  item?.resolve(yes);
}

/** The approval on screen (the oldest one). */
export function useCurrentApproval(): ApprovalRequest | undefined {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => queue[0]?.request,
  );
}
