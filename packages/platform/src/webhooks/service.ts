/**
 * A project's webhook as the operator (admin API, `wharf project webhook`) and its developer
 * (dashboard API) manage it: set the URL (the first time, a signing secret is made and shown
 * once), rotate the secret (the old one keeps signing for 24 h, as a second `v1=`), remove it,
 * read the delivery log and resend an event. The caller has already checked the project exists
 * and may be touched by the asker.
 */
import { invalid, ServiceError } from '../errors.js';
import { webhookRetryWindowMs } from './dispatcher.js';
import type { WebhookEventRow, WebhooksRepository } from './repository.js';
import { generateWebhookSecret } from './signature.js';
import { parseWebhookUrl } from './url.js';

/** How long the secret before a rotation keeps signing. */
export const previousSecretGraceMs = 24 * 60 * 60 * 1000;

export interface WebhookInfo {
  projectId: string;
  /** null when the project has no webhook. */
  url: string | null;
  /** ISO 8601, when the previous secret stops signing (after a rotation), else null. */
  previousSecretExpiresAt: string | null;
  /** ISO 8601. */
  updatedAt: string | null;
}

export interface WebhookWithSecret {
  projectId: string;
  url: string;
  /** Shown once: when the webhook is first set, and at each rotation. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  appUrl: string;
  walletAddress: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** ISO 8601. */
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** The JSON POSTed. */
  body: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toDelivery(row: WebhookEventRow): WebhookDelivery {
  return {
    id: row.id,
    event: row.event,
    appUrl: row.app_url,
    walletAddress: row.wallet_address,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    createdAt: new Date(row.created_at).toISOString(),
    deliveredAt: iso(row.delivered_at),
    body: row.body,
  };
}

export interface WebhookOperations {
  getWebhook(projectId: string): Promise<WebhookInfo>;
  setWebhook(projectId: string, url: unknown): Promise<WebhookWithSecret>;
  rotateWebhookSecret(projectId: string): Promise<WebhookWithSecret>;
  removeWebhook(projectId: string): Promise<{ projectId: string; removed: boolean }>;
  listWebhookDeliveries(
    projectId: string,
    query?: { cursor?: unknown; limit?: unknown },
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor?: string }>;
  resendWebhookDelivery(projectId: string, id: string): Promise<WebhookDelivery>;
}

export function webhookOperations(
  repository: WebhooksRepository,
  clock: () => number,
  onQueued: () => void = () => {},
): WebhookOperations {
  return {
    async getWebhook(projectId) {
      const row = await repository.config(projectId);
      const now = clock();
      return {
        projectId,
        url: row?.url ?? null,
        previousSecretExpiresAt:
          row?.previous_secret_expires_at && row.previous_secret_expires_at > now
            ? iso(row.previous_secret_expires_at)
            : null,
        updatedAt: iso(row?.updated_at ?? null),
      };
    },

    async setWebhook(projectId, input) {
      const url = parseWebhookUrl(input);
      const secret = generateWebhookSecret();
      const fresh = await repository.setUrl(projectId, url, secret, clock());
      return { projectId, url, ...(fresh ? { secret } : {}) };
    },

    async rotateWebhookSecret(projectId) {
      const now = clock();
      const secret = generateWebhookSecret();
      if (!(await repository.rotateSecret(projectId, secret, now + previousSecretGraceMs, now)))
        throw new ServiceError('NOT_FOUND', `project ${projectId} has no webhook; set its URL first`);
      const row = await repository.config(projectId);
      return { projectId, url: row!.url, secret };
    },

    async removeWebhook(projectId) {
      return { projectId, removed: await repository.remove(projectId) };
    },

    async listWebhookDeliveries(projectId, query = {}) {
      let limit = 50;
      if (query.limit !== undefined) {
        const n = typeof query.limit === 'string' ? Number(query.limit) : query.limit;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
          throw invalid('limit', 'must be an integer of at least 1');
        limit = Math.min(n, 200);
      }
      let beforeSeq: number | undefined;
      if (query.cursor !== undefined && query.cursor !== '') {
        const decoded =
          typeof query.cursor === 'string'
            ? Number(Buffer.from(query.cursor, 'base64url').toString('utf8'))
            : NaN;
        if (!Number.isSafeInteger(decoded) || decoded < 1)
          throw invalid('cursor', 'is not a cursor this service issued');
        beforeSeq = decoded;
      }
      const rows = await repository.list(projectId, { beforeSeq, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        deliveries: page.map(toDelivery),
        ...(rows.length > limit && last
          ? { nextCursor: Buffer.from(String(last.seq)).toString('base64url') }
          : {}),
      };
    },

    async resendWebhookDelivery(projectId, id) {
      const now = clock();
      const row =
        typeof id === 'string'
          ? await repository.resend(projectId, id, now, now + webhookRetryWindowMs)
          : undefined;
      if (!row)
        throw new ServiceError('NOT_FOUND', `webhook event ${id} does not exist in project ${projectId}`);
      onQueued();
      return toDelivery(row);
    },
  };
}
