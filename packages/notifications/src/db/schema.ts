/**
 * The tables of the notifications store, as Kysely sees them. Times are Unix milliseconds
 * (bigint columns, read back as numbers); booleans are 0/1 integers on both SQLite and PostgreSQL.
 */
export interface ProjectsTable {
  id: string;
  name: string;
  /** The developer's wallet address (EIP-55), or null for operator-created projects. */
  owner: string | null;
  whitelisted: number;
  created_at: number;
  /** Set when the project is deleted; its keys then answer 404. */
  deleted_at: number | null;
}

export interface ApiKeysTable {
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  project_id: string;
  created_at: number;
  /** Set when the key is rotated away; it then answers 401. */
  revoked_at: number | null;
}

export interface AppUrlsTable {
  /** Normalized (lower-case scheme and host, no default port, no trailing slash). */
  app_url: string;
  project_id: string;
  created_at: number;
}

/** Every (app URL, project) ever registered; rows stay after removal and deletion. */
export interface AppUrlHistoryTable {
  app_url: string;
  project_id: string;
  registered_at: number;
}

export interface PinsTable {
  app_url: string;
  /** EIP-55. */
  address: string;
  /** 1 while the app is pinned; unpinning keeps the row with 0 so the walk order stays stable. */
  pinned: number;
  notifications_enabled: number;
  /** The users list's order: the time of the first pin, never changed afterwards. */
  sort_at: number;
  /** The time of the latest pin (shown to the user). */
  pinned_at: number;
  updated_at: number;
}

export interface NotificationsTable {
  /** ULID: sorts by creation time; also the SSE event id. */
  id: string;
  project_id: string;
  app_url: string;
  wallet_address: string;
  title: string;
  message: string;
  target_path: string | null;
  created_at: number;
  read_at: number | null;
  dedupe_key: string;
}

export interface DedupeKeysTable {
  /** SHA-256 over (app URL, address, title, message, target path). */
  key: string;
  expires_at: number;
}

export interface AuthNoncesTable {
  nonce: string;
  expires_at: number;
  used_at: number | null;
}

export interface SessionsTable {
  /** SHA-256 of the bearer token. */
  token_hash: string;
  address: string;
  created_at: number;
  expires_at: number;
}

/** Live pushes not yet handed to the fan-out (docs/decisions/0170). */
export interface NotificationOutboxTable {
  id: string;
  /** JSON array of notification ids (one send's stored notifications). */
  notification_ids: string;
  created_at: number;
  /** Until then the writer owns the push; afterwards any instance's relay takes it. */
  lease_until: number;
}

export interface Tables {
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  app_urls: AppUrlsTable;
  app_url_history: AppUrlHistoryTable;
  pins: PinsTable;
  notifications: NotificationsTable;
  dedupe_keys: DedupeKeysTable;
  auth_nonces: AuthNoncesTable;
  sessions: SessionsTable;
  notification_outbox: NotificationOutboxTable;
}
