/**
 * The outbox relay: pushes the stored sends whose writer did not (docs/decisions/0170).
 *
 *   send ─> one transaction: notifications + dedupe keys + outbox row (lease: the writer's)
 *        ─> writer publishes, deletes the row            (the usual path)
 *   relay, every instance, every pollMs:
 *        claim rows whose lease ran out (takes a new lease; SKIP LOCKED on PostgreSQL)
 *        ─> load their notifications ─> fanout.publish ─> delete the row
 *
 * A row is deleted only after its publish succeeded, so a push is lost only with the database; it
 * may be pushed twice when a writer is slower than its lease (clients key events by id).
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { toNotification } from '../db/repositories/inbox.js';
import type { LiveFanout } from './fanout.js';

/** Default lease of a writer over its own push, in milliseconds. */
export const defaultOutboxLeaseMs = 5_000;

/** Rows a relay takes per round. */
const claimBatch = 20;

export async function deleteOutboxRow(database: Database, id: string): Promise<void> {
  await database.db.deleteFrom('notification_outbox').where('id', '=', id).execute();
}

export interface OutboxRelayOptions {
  /** The lease a relay takes on a row it claims (the same as a writer's). */
  leaseMs: number;
  /** Milliseconds between rounds. */
  pollMs: number;
  clock?: () => number;
  log?: Pick<Logger, 'warn'>;
}

export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly database: Database,
    private readonly fanout: LiveFanout,
    private readonly options: OutboxRelayOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((error) => this.options.log?.warn({ err: error }, 'outbox relay round failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One round: claims expired rows, pushes them, deletes them. Returns the rows pushed. */
  async runOnce(): Promise<number> {
    const now = (this.options.clock ?? Date.now)();
    const rows = await this.claim(now);
    let pushed = 0;
    for (const row of rows) {
      const ids = JSON.parse(row.notification_ids) as string[];
      const stored =
        ids.length === 0
          ? []
          : await this.database.db.selectFrom('notifications').selectAll().where('id', 'in', ids).execute();
      // A failed publish keeps the row: it is claimed again when this lease runs out.
      await this.fanout.publish(stored.map(toNotification));
      await deleteOutboxRow(this.database, row.id);
      pushed++;
    }
    return pushed;
  }

  private async claim(now: number): Promise<Array<{ id: string; notification_ids: string }>> {
    const leaseUntil = now + this.options.leaseMs;
    // PostgreSQL: SKIP LOCKED so that relays of several instances never take the same row.
    const lock = this.database.kind === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<{ id: string; notification_ids: string }>`
      update notification_outbox set lease_until = ${leaseUntil}
      where id in (
        select id from notification_outbox where lease_until <= ${now}
        order by lease_until limit ${claimBatch} ${lock}
      )
      returning id, notification_ids`.execute(this.database.db);
    return result.rows;
  }
}
