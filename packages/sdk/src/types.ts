/** The wire types of the platform API (v1), camelCase on the SDK side: one definition for every client. */

/** An element of `users` in the users list. */
export interface AppUser {
  /** EIP-55. */
  address: string;
  notificationsEnabled: boolean;
}

export interface UsersPage {
  success: boolean;
  users: AppUser[];
  /** Absent on the last page. */
  nextCursor?: string;
}

export interface UserStatus {
  appPinned: boolean;
  /** Always false when appPinned is false. */
  notificationsEnabled: boolean;
}

export type FailureReason = 'user has not saved this app' | 'user has notifications disabled';

export interface DeliveryResult {
  walletAddress: string;
  sent: boolean;
  /** Present only when sent is false. */
  failureReason?: FailureReason;
}

export interface SendResult {
  /** true only when every address was delivered. */
  success: boolean;
  results: DeliveryResult[];
  sentCount: number;
  failedCount: number;
}

export interface ListUsersParameters {
  appUrl: string;
  /** true: only users with notifications enabled. */
  notificationEnabled?: boolean;
  cursor?: string;
  /** Default 100 on the server; above 500 is clamped to 500. */
  limit?: number;
}

export interface UserStatusParameters {
  appUrl: string;
  /** Any letter case. */
  walletAddress: string;
}

export interface SendParameters {
  appUrl: string;
  /** 1 to 1,000 addresses. */
  walletAddresses: string[];
  /** At most 30 characters (code points). */
  title: string;
  /** At most 200 characters (code points). */
  message: string;
  /** Starts with '/', at most 500 characters; omitted: the app opens at its root URL. */
  targetPath?: string;
}

export interface SendToAllParameters extends Omit<SendParameters, 'walletAddresses'> {
  /** Any number of addresses, from an array or an (async) iterator such as `client.users(...)`. */
  walletAddresses: Iterable<string> | AsyncIterable<string>;
  /** Called after each request of up to 1,000. */
  onBatch?: (result: SendResult, batch: { index: number; size: number }) => void;
}

export interface SendToAllResult extends SendResult {
  /** How many requests were made. */
  requests: number;
}

/** One notification of a wallet's inbox (client API), also the stream's `notification` event. */
export interface PlatformNotification {
  /** ULID; also the stream's event id. */
  id: string;
  appUrl: string;
  title: string;
  message: string;
  targetPath: string | null;
  /** ISO 8601. */
  createdAt: string;
  readAt: string | null;
}

/** An app a wallet pinned. */
export interface PinnedApp {
  appUrl: string;
  notificationsEnabled: boolean;
  /** ISO 8601. */
  pinnedAt: string;
}

/** A wallet's state for one app after pin, unpin or a notifications toggle. */
export interface AppState {
  appUrl: string;
  appPinned: boolean;
  notificationsEnabled: boolean;
}

/** A registered app in the platform app's catalog. */
export interface CatalogApp {
  appUrl: string;
  /** The project's name. */
  name: string;
  /** The project's icon, when its developer set one (absent from servers before icons). */
  iconUrl?: string | null;
}

/** One page of a wallet's inbox. */
export interface InboxPage {
  notifications: PlatformNotification[];
  /** All unread notifications of the wallet (not only this page's). */
  unreadCount: number;
  /** Absent on the last page. */
  nextCursor?: string;
}

/** What the platform tells the app about its chain (GET /api/v1/client/config). */
export interface ClientConfig {
  chainId: number;
  /** Absent when the platform runs without a chain. */
  chainRpcUrl?: string;
}

/** A project, as the admin and dashboard APIs show it. */
export interface Project {
  projectId: string;
  name: string;
  /** The owner's wallet address (EIP-55), null for a project the operator made without one. */
  owner: string | null;
  whitelisted: boolean;
  appUrls: string[];
  /** ISO 8601. */
  createdAt: string;
  /** Whether the project has a live API key. */
  hasKey: boolean;
  /** The icon the platform app shows with the name; null: none. */
  iconUrl: string | null;
}

/** A project just made: its first API key is shown once. */
export interface CreatedProject {
  projectId: string;
  /** Shown once; only its SHA-256 is stored. */
  apiKey: string;
  appUrls: string[];
  whitelisted: boolean;
}

/** A new API key; the previous one stopped at once. */
export interface RotatedKey {
  projectId: string;
  apiKey: string;
}

export interface RevokedKeys {
  projectId: string;
  /** Live keys revoked (0 when there were none). */
  revoked: number;
}

/** A project's webhook (the secret is never shown again). */
export interface WebhookInfo {
  projectId: string;
  /** null: no webhook. */
  url: string | null;
  /** After a rotation: until then the old secret signs too. */
  previousSecretExpiresAt: string | null;
  updatedAt: string | null;
}

export interface WebhookWithSecret {
  projectId: string;
  url: string;
  /** The signing secret, shown once: when first set and at each rotation. */
  secret?: string;
}

/** One event of a project's webhook delivery log, with its attempts. */
export interface WebhookDelivery {
  /** The event id (ULID), as in the body. */
  id: string;
  event: string;
  appUrl: string;
  walletAddress: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** The JSON POSTed. */
  body: string;
}

/** One send of a project's send log, with its per-address results. */
export interface SendLogEntry {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  appUrl: string;
  title: string;
  targetPath: string | null;
  /** key: the developer API with the project's key; dashboard: a test send. */
  sentBy: 'key' | 'dashboard';
  sentCount: number;
  failedCount: number;
  results: DeliveryResult[];
}
