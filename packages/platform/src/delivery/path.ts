/**
 * The delivery path: the inbox write (notifications and their dedupe keys, in one transaction) and
 * the live fan-out. An interface, so tests inject an outage (send then answers 503).
 */

/** A notification as stored in the recipient's inbox and pushed to their live connections. */
export interface Notification {
  /** ULID. */
  id: string;
  projectId: string;
  appUrl: string;
  walletAddress: string;
  title: string;
  message: string;
  targetPath: string | null;
  createdAt: number;
  readAt: number | null;
  dedupeKey: string;
}

/** One send as the dashboard's send log keeps it; written with the send's notifications. */
export interface SendRecord {
  /** ULID. */
  id: string;
  projectId: string;
  appUrl: string;
  title: string;
  targetPath: string | null;
  /** Who sent it: the project's API key, or its owner from the dashboard (a test send). */
  sentBy: 'key' | 'dashboard';
  sentCount: number;
  failedCount: number;
  results: ReadonlyArray<{ walletAddress: string; sent: boolean; failureReason?: string }>;
  createdAt: number;
}

export interface DeliveryOutcome {
  /** Stored and pushed. */
  delivered: Notification[];
  /** Dedupe keys already claimed by a concurrent identical send: answered as sent, nothing pushed. */
  alreadyDelivered: string[];
}

export interface DeliveryPath {
  /** The keys among `keys` whose 24 h window is still open, in one query. Consumer: send. */
  openWindows(keys: readonly string[], now: number): Promise<Set<string>>;
  /**
   * Stores the notifications and claims their dedupe keys for `windowMs` in one transaction, then
   * fans them out. A failure stores nothing (no window starts). `record`, when given, is written to
   * the send log in the same transaction (also when there is no notification to store). Consumer: send.
   */
  deliver(
    notifications: readonly Notification[],
    options: { now: number; windowMs: number; record?: SendRecord },
  ): Promise<DeliveryOutcome>;
}

/** Thrown by a delivery path that cannot deliver now; send answers 503 with Retry-After. */
export class DeliveryUnavailableError extends Error {
  override readonly name = 'DeliveryUnavailableError';
  constructor(
    message = 'the delivery path is unavailable',
    readonly retryAfter = 5,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
