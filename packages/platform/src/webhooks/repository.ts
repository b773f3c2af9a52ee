/** SQL of webhooks: each project's webhook (URL, secrets) and the queue of events (also the log). */
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import type { ProjectWebhooksTable, Tables, WebhookEventsTable } from '../db/schema.js';

export type WebhookConfigRow = ProjectWebhooksTable;

/** An event claimed for an attempt, with where and how to send it. */
export interface ClaimedEvent {
  seq: number;
  id: string;
  projectId: string;
  body: string;
  attempts: number;
  deadlineAt: number;
  /** undefined when the project has no webhook any more. */
  url?: string;
  secrets: string[];
}

export type WebhookEventRow = Omit<WebhookEventsTable, 'seq'> & { seq: number };

export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  async config(projectId: string): Promise<WebhookConfigRow | undefined> {
    return this.db
      .selectFrom('project_webhooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  }

  /** Sets the URL; a project without a webhook gets `newSecret`. Returns whether the secret was new. */
  async setUrl(projectId: string, url: string, newSecret: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable('project_webhooks')
        .set({ url, updated_at: now })
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return false;
      await tx
        .insertInto('project_webhooks')
        .values({
          project_id: projectId,
          url,
          secret: newSecret,
          previous_secret: null,
          previous_secret_expires_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return true;
    });
  }

  /** Replaces the secret; the old one keeps signing until `previousExpiresAt`. False without a webhook. */
  async rotateSecret(
    projectId: string,
    secret: string,
    previousExpiresAt: number,
    now: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const current = await tx
        .selectFrom('project_webhooks')
        .select('secret')
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      if (!current) return false;
      await tx
        .updateTable('project_webhooks')
        .set({
          secret,
          previous_secret: current.secret,
          previous_secret_expires_at: previousExpiresAt,
          updated_at: now,
        })
        .where('project_id', '=', projectId)
        .execute();
      return true;
    });
  }

  async remove(projectId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('project_webhooks')
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Queues an event for the project that owns `appUrl`, inside the caller's transaction (the pin
   * change's), if that project has a webhook. Returns whether one was queued.
   */
  async enqueue(
    tx: Transaction<Tables>,
    event: {
      id: string;
      appUrl: string;
      walletAddress: string;
      event: string;
      body: string;
      now: number;
      deadlineAt: number;
    },
  ): Promise<boolean> {
    const target = await tx
      .selectFrom('app_urls as a')
      .innerJoin('project_webhooks as w', 'w.project_id', 'a.project_id')
      .select('a.project_id')
      .where('a.app_url', '=', event.appUrl)
      .executeTakeFirst();
    if (!target) return false;
    await tx
      .insertInto('webhook_events')
      .values({
        id: event.id,
        project_id: target.project_id,
        app_url: event.appUrl,
        wallet_address: event.walletAddress,
        event: event.event,
        body: event.body,
        status: 'pending',
        attempts: 0,
        next_attempt_at: event.now,
        deadline_at: event.deadlineAt,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
        created_at: event.now,
        delivered_at: null,
      })
      .execute();
    return true;
  }

  /**
   * Claims up to `limit` due events, each the oldest pending event of its (app URL, wallet) — so
   * one wallet's events go out one at a time, in order — by moving their next attempt to the end
   * of a lease. A claim is a compare-and-set on next_attempt_at: two servers never claim the same
   * attempt, and an attempt whose server died is claimed again when its lease ends.
   */
  async claimDue(now: number, limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
    if (limit <= 0) return [];
    const due = await this.db
      .selectFrom('webhook_events as e')
      .select(['e.seq', 'e.next_attempt_at'])
      .where('e.status', '=', 'pending')
      .where('e.next_attempt_at', '<=', now)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_events as p')
              .select('p.seq')
              .whereRef('p.app_url', '=', 'e.app_url')
              .whereRef('p.wallet_address', '=', 'e.wallet_address')
              .where('p.status', '=', 'pending')
              .whereRef('p.seq', '<', 'e.seq'),
          ),
        ),
      )
      .orderBy('e.next_attempt_at')
      .orderBy('e.seq')
      .limit(limit)
      .execute();
    const claimed: number[] = [];
    for (const row of due) {
      const result = await this.db
        .updateTable('webhook_events')
        .set({ next_attempt_at: now + leaseMs })
        .where('seq', '=', row.seq)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimed.push(row.seq);
    }
    if (claimed.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_events as e')
      .leftJoin('project_webhooks as w', 'w.project_id', 'e.project_id')
      .select([
        'e.seq',
        'e.id',
        'e.project_id',
        'e.body',
        'e.attempts',
        'e.deadline_at',
        'w.url',
        'w.secret',
        'w.previous_secret',
        'w.previous_secret_expires_at',
      ])
      .where('e.seq', 'in', claimed)
      .orderBy('e.seq')
      .execute();
    return rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      projectId: r.project_id,
      body: r.body,
      attempts: r.attempts,
      deadlineAt: r.deadline_at,
      ...(r.url ? { url: r.url } : {}),
      secrets: [
        ...(r.secret ? [r.secret] : []),
        ...(r.previous_secret && (r.previous_secret_expires_at ?? 0) > now ? [r.previous_secret] : []),
      ],
    }));
  }

  /** The earliest next_attempt_at of a pending event, if any. */
  async nextDueAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('webhook_events')
      .select(({ fn }) => fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Records an attempt. `next` is the next attempt's time, or 'delivered' / 'failed'. */
  async recordAttempt(
    seq: number,
    attempt: { at: number; statusCode?: number; error?: string; next: number | 'delivered' | 'failed' },
  ): Promise<void> {
    await this.db
      .updateTable('webhook_events')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_attempt_at: attempt.at,
        last_status_code: attempt.statusCode ?? null,
        last_error: attempt.error ?? null,
        status: attempt.next === 'delivered' || attempt.next === 'failed' ? attempt.next : 'pending',
        next_attempt_at: typeof attempt.next === 'number' ? attempt.next : attempt.at,
        ...(attempt.next === 'delivered' ? { delivered_at: attempt.at } : {}),
      }))
      .where('seq', '=', seq)
      .execute();
  }

  /** Gives claimed attempts back at once (the server is stopping before they ran). */
  async release(seqs: readonly number[], now: number): Promise<void> {
    if (seqs.length === 0) return;
    await this.db
      .updateTable('webhook_events')
      .set({ next_attempt_at: now })
      .where('seq', 'in', [...seqs])
      .where('status', '=', 'pending')
      .execute();
  }

  /** A project's events, newest first, strictly before `beforeSeq`. */
  async list(projectId: string, query: { beforeSeq?: number; limit: number }): Promise<WebhookEventRow[]> {
    let q = this.db.selectFrom('webhook_events').selectAll().where('project_id', '=', projectId);
    if (query.beforeSeq !== undefined) q = q.where('seq', '<', query.beforeSeq);
    return (await q.orderBy('seq', 'desc').limit(query.limit).execute()) as WebhookEventRow[];
  }

  /**
   * Queues a finished event of the project again (a new 24 h of retries); one still pending stays
   * as it is (already queued). Returns the event, or undefined when it is not the project's.
   */
  async resend(
    projectId: string,
    id: string,
    now: number,
    deadlineAt: number,
  ): Promise<WebhookEventRow | undefined> {
    await this.db
      .updateTable('webhook_events')
      .set({ status: 'pending', next_attempt_at: now, deadline_at: deadlineAt, delivered_at: null })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .where('status', '!=', 'pending')
      .execute();
    return (await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst()) as WebhookEventRow | undefined;
  }

  /** Deletes finished events older than `before` (the delivery log's retention). */
  async sweep(before: number): Promise<void> {
    await this.db
      .deleteFrom('webhook_events')
      .where('status', '!=', 'pending')
      .where('created_at', '<', before)
      .execute();
  }
}
