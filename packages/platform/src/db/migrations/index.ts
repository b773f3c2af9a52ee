import type { Migration } from 'kysely';
import * as initial from './20261122_0400_initial.js';
import * as clientSessions from './20261122_0500_client_sessions.js';
import * as notificationOutbox from './20261127_0800_notification_outbox.js';
import * as appUrlHistory from './20261127_0900_app_url_history.js';
import * as webhooks from './20261127_0930_webhooks.js';
import * as projectIcons from './20261127_0940_project_icons.js';
import * as sendLog from './20261127_1000_send_log.js';

/** Every migration, by its timestamped name. Static imports, so the list works from `dist/` too. */
export const migrations: Record<string, Migration> = {
  '20261122_0400_initial': initial,
  '20261122_0500_client_sessions': clientSessions,
  '20261127_0800_notification_outbox': notificationOutbox,
  '20261127_0900_app_url_history': appUrlHistory,
  '20261127_0930_webhooks': webhooks,
  '20261127_0940_project_icons': projectIcons,
  '20261127_1000_send_log': sendLog,
};
