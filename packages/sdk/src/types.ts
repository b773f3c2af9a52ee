/** The wire types of the notifications API (v1), camelCase on the SDK side. */

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
