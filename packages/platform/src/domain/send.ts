/**
 * Send: one result per distinct address, in first-seen order.
 *
 *   preferences.statusOf(all)            one query
 *     not pinned / disabled  -> failure result
 *     enabled                -> dedupe: openWindows(keys)  one query
 *        window open         -> sent (nothing pushed)
 *        new                 -> delivery.deliver(...)     one transaction + live fan-out
 *   the send's row in the send log        in that same transaction (alone when nothing is new)
 */
import type { AuthenticatedProject } from '../auth/authenticate.js';
import { DeliveryUnavailableError, type Notification, type SendRecord } from '../delivery/path.js';
import { ServiceError } from '../errors.js';
import { authorizeApp } from './authorizeApp.js';
import { dedupeKey } from './dedupe.js';
import type { DeveloperDeps } from './deps.js';
import { limits } from './limits.js';
import type { SendRequest } from './rules.js';

export const failureReasons = {
  notPinned: 'user has not saved this app',
  disabled: 'user has notifications disabled',
} as const;

export interface DeliveryResult {
  walletAddress: string;
  sent: boolean;
  failureReason?: (typeof failureReasons)[keyof typeof failureReasons];
}

export interface SendResponse {
  success: boolean;
  results: DeliveryResult[];
  sentCount: number;
  failedCount: number;
}

export async function sendNotification(
  deps: DeveloperDeps,
  project: AuthenticatedProject,
  request: SendRequest,
  sentBy: SendRecord['sentBy'] = 'key',
): Promise<SendResponse> {
  await authorizeApp(deps, project, request.appUrl);
  const now = deps.clock();

  const statuses = await unavailableOnFailure(() =>
    deps.preferences.statusOf(request.appUrl, request.walletAddresses),
  );

  const results: DeliveryResult[] = [];
  const candidates: Notification[] = [];
  for (const walletAddress of request.walletAddresses) {
    const status = statuses.get(walletAddress);
    if (!status?.pinned) {
      results.push({ walletAddress, sent: false, failureReason: failureReasons.notPinned });
    } else if (!status.notificationsEnabled) {
      results.push({ walletAddress, sent: false, failureReason: failureReasons.disabled });
    } else {
      results.push({ walletAddress, sent: true });
      candidates.push({
        id: deps.newId(),
        projectId: project.projectId,
        appUrl: request.appUrl,
        walletAddress,
        title: request.title,
        message: request.message,
        targetPath: request.targetPath,
        createdAt: now,
        readAt: null,
        dedupeKey: dedupeKey({ ...request, walletAddress }),
      });
    }
  }

  const sentCount = results.filter((r) => r.sent).length;
  const failedCount = results.length - sentCount;
  const record: SendRecord = {
    id: deps.newId(),
    projectId: project.projectId,
    appUrl: request.appUrl,
    title: request.title,
    targetPath: request.targetPath,
    sentBy,
    sentCount,
    failedCount,
    results,
    createdAt: now,
  };

  const open =
    candidates.length === 0
      ? new Set<string>()
      : await unavailableOnFailure(() =>
          deps.delivery.openWindows(
            candidates.map((c) => c.dedupeKey),
            now,
          ),
        );
  const fresh = candidates.filter((c) => !open.has(c.dedupeKey));
  // Repeats within the window, and keys a concurrent identical send claimed first, answer sent.
  await unavailableOnFailure(() =>
    deps.delivery.deliver(fresh, { now, windowMs: limits.dedupeWindowMs, record }),
  );

  return { success: failedCount === 0, results, sentCount, failedCount };
}

/** On the send endpoint, any failure of the stores is "temporarily unavailable; retry" (503). */
async function unavailableOnFailure<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const retryAfter = error instanceof DeliveryUnavailableError ? error.retryAfter : 5;
    throw new ServiceError(
      'DELIVERY_UNAVAILABLE',
      'the notification service is temporarily unavailable; retry',
      {
        cause: error,
        retryAfter,
      },
    );
  }
}
