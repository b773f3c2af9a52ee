/**
 * The live-push outbox (docs/decisions/0170), on SQLite and PostgreSQL: a send's outbox row is
 * written with its notifications; the writer deletes it after publishing; when the writer could
 * not publish, a relay pushes it once the lease ran out — and two relays never push one row twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { InProcessFanout, type LiveFanout } from '../src/delivery/fanout.js';
import { OutboxRelay } from '../src/delivery/outboxRelay.js';
import type { Notification } from '../src/delivery/path.js';
import { SqlDeliveryPath } from '../src/delivery/sqlDeliveryPath.js';
import { createUlidGenerator } from '../src/domain/ulid.js';
import { addressOf, backends, cleanupBackends } from './helpers.js';

afterAll(cleanupBackends);

const newId = createUlidGenerator();
function batch(title: string, count: number, now: number): Notification[] {
  return Array.from({ length: count }, (_, i) => ({
    id: newId(),
    projectId: 'p1',
    appUrl: 'https://outbox.example.com',
    walletAddress: addressOf(i + 1),
    title,
    message: 'outbox test',
    targetPath: null,
    createdAt: now,
    readAt: null,
    dedupeKey: `${title}:${i}`,
  }));
}

const brokenFanout: LiveFanout = {
  publish: async () => {
    throw new Error('fan-out down');
  },
  subscribe: () => () => {},
  onReconnect: () => () => {},
  close: async () => {},
};

function recording(): { fanout: InProcessFanout; heard: Notification[] } {
  const fanout = new InProcessFanout();
  const heard: Notification[] = [];
  const dispatch = fanout.dispatch.bind(fanout);
  fanout.dispatch = (ns) => {
    heard.push(...ns);
    dispatch(ns);
  };
  return { fanout, heard };
}

describe.each(backends)('the outbox on $name', (backend) => {
  it('is emptied by the writer that published', async () => {
    const database = await openDatabase(await backend.fresh());
    try {
      const { fanout, heard } = recording();
      const path = new SqlDeliveryPath(database, fanout, undefined, 1_000);
      const now = Date.now();
      const outcome = await path.deliver(batch('usual', 3, now), { now, windowMs: 60_000 });
      expect(outcome.delivered).toHaveLength(3);
      expect(heard.map((n) => n.title)).toEqual(['usual', 'usual', 'usual']);
      expect(await database.db.selectFrom('notification_outbox').selectAll().execute()).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('keeps a push the writer could not make, and a relay makes it once the lease ran out', async () => {
    const database = await openDatabase(await backend.fresh());
    try {
      const now = Date.now();
      const writer = new SqlDeliveryPath(database, brokenFanout, undefined, 1_000);
      const sent = batch('lost push', 2, now);
      expect((await writer.deliver(sent, { now, windowMs: 60_000 })).delivered).toHaveLength(2);
      expect(await database.db.selectFrom('notification_outbox').selectAll().execute()).toHaveLength(1);

      let clock = now + 999;
      const { fanout, heard } = recording();
      const relay = new OutboxRelay(database, fanout, { leaseMs: 1_000, pollMs: 100, clock: () => clock });
      expect(await relay.runOnce()).toBe(0); // the writer's lease still holds
      clock = now + 1_000;
      expect(await relay.runOnce()).toBe(1);
      expect(heard.map((n) => n.id).sort()).toEqual(sent.map((n) => n.id).sort());
      expect(await database.db.selectFrom('notification_outbox').selectAll().execute()).toEqual([]);
      expect(await relay.runOnce()).toBe(0);
    } finally {
      await database.close();
    }
  });

  it('lets two relays push each row exactly once', async () => {
    const database = await openDatabase(await backend.fresh());
    try {
      const now = Date.now();
      const writer = new SqlDeliveryPath(database, brokenFanout, undefined, 0);
      for (let i = 0; i < 30; i++) await writer.deliver(batch(`row ${i}`, 2, now), { now, windowMs: 60_000 });
      const { fanout, heard } = recording();
      const relays = [0, 1].map(
        () => new OutboxRelay(database, fanout, { leaseMs: 60_000, pollMs: 100, clock: () => now + 1 }),
      );
      let pushed = 0;
      for (;;) {
        const round = await Promise.all(relays.map((r) => r.runOnce()));
        if (round[0] === 0 && round[1] === 0) break;
        pushed += round[0]! + round[1]!;
      }
      expect(pushed).toBe(30);
      expect(heard).toHaveLength(60);
      expect(new Set(heard.map((n) => n.id)).size).toBe(60);
    } finally {
      await database.close();
    }
  });
});
