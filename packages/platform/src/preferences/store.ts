/**
 * The preferences store: which wallets pinned which app and opted in to its notifications.
 * An interface, so tests inject failures (the status endpoint then answers 500).
 */

export interface PreferenceStatus {
  pinned: boolean;
  notificationsEnabled: boolean;
}

/** A position in the users walk: the last user of the previous page. */
export interface WalkPosition {
  sortAt: number;
  address: string;
}

export interface PinnedUser {
  address: string;
  notificationsEnabled: boolean;
  sortAt: number;
}

export interface PinnedApp {
  appUrl: string;
  notificationsEnabled: boolean;
  pinnedAt: number;
}

export interface PreferencesStore {
  /**
   * The state of each address for one app, in one query. Addresses missing from the map are not
   * pinned. Consumers: send (the whole audience), user status (one address).
   */
  statusOf(appUrl: string, addresses: readonly string[]): Promise<Map<string, PreferenceStatus>>;
  /**
   * One page of the app's pinned users, ordered by first pin time then address, strictly after
   * `after`. Consumer: the users list.
   */
  listPinned(
    appUrl: string,
    query: { enabledOnly: boolean; after?: WalkPosition; limit: number },
  ): Promise<PinnedUser[]>;
  /** Pins (idempotent). A new pin opts in unless `notificationsEnabled` is false. Consumer: client API. */
  pin(
    appUrl: string,
    address: string,
    options: { notificationsEnabled?: boolean; now: number },
  ): Promise<void>;
  /** Unpins (idempotent); notifications are forced off. Consumer: client API. */
  unpin(appUrl: string, address: string, now: number): Promise<void>;
  /** Enables or disables notifications; 'not-pinned' when the app is not pinned. Consumer: client API. */
  setNotifications(
    appUrl: string,
    address: string,
    enabled: boolean,
    now: number,
  ): Promise<'ok' | 'not-pinned'>;
  /** The apps one wallet pinned, newest pin first. Consumer: client API. */
  pinnedApps(address: string): Promise<PinnedApp[]>;
}
