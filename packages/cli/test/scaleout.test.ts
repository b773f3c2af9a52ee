/**
 * Scale-out of the platform server, for real: three `wharf serve` processes on one PostgreSQL
 * database and one Redis, behind Debian's nginx running the config of docs/deploy/nginx.conf.
 * Proves: one rate-limit budget per client IP across instances (and X-Forwarded-For written by a
 * client does not buy a new one); the 24 h dedupe across instances; a send through one instance
 * reaches a stream on another, also through nginx without buffering; an instance killed with -9
 * in the middle of a 1,000-address send loses and doubles nothing once the caller retries, and a
 * push that died with it is made by another instance (the outbox, docs/decisions/0170).
 * Skipped without nginx, PostgreSQL (WHARF_TEST_POSTGRES_URL) and Redis (WHARF_TEST_REDIS_URL).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { buildPlatformApp } from '@wharf/platform';
import pg from 'pg';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startWharf, tempDir } from './run-cli.js';
import { openStream, request, type Stream, signIn } from './scaleout/clients.js';
import { type Nginx, nginxBinary, startNginx } from './scaleout/nginx.js';

const postgresUrl = process.env.WHARF_TEST_POSTGRES_URL;
const redisUrl = process.env.WHARF_TEST_REDIS_URL;
const haveNginx = fs.existsSync(nginxBinary);
const ready = Boolean(postgresUrl && redisUrl && haveNginx);
if (!ready && process.env.CI) throw new Error('CI: the scale-out test needs nginx, PostgreSQL and Redis');

const APP_URL = 'https://scaleout.example.com';
const audience = Array.from({ length: 997 }, (_, i) =>
  getAddress(`0x5ca1e${(i + 1).toString(16).padStart(35, '0')}`),
);
const wallets = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
/** The 1,000 addresses of a full send: three wallets that stream, and 997 that do not. */
const everyone = [...wallets.map((w) => w.address), ...audience];

interface Instance {
  port: number;
  url: string;
  running: Running;
}

describe.skipIf(!ready)('three wharf serve behind nginx on PostgreSQL and Redis', () => {
  const database = `wharf_scaleout_${randomBytes(5).toString('hex')}`;
  const prefix = `${database}:`;
  let databaseUrl: string;
  let admin: pg.Client;
  let apiKey: string;
  const instances: Instance[] = [];
  let nginx: Nginx;
  const streams: Stream[] = [];

  const serveArgs = (port: number) => [
    'serve',
    '--port',
    String(port),
    '--data-dir',
    tempDir(),
    '--database-url',
    databaseUrl,
    '--redis-url',
    redisUrl!,
    '--redis-prefix',
    prefix,
    '--outbox-lease',
    '1000',
    '--admin-token',
    'scaleout-admin-token',
  ];
  // One trusted hop: nginx.
  const env = { WHARF_TRUST_PROXY: '1' };

  async function startInstance(port = 0): Promise<Instance> {
    const running = await startWharf(serveArgs(port), /Platform\s+http/, 30_000, env);
    const url = /Platform\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())![1]!;
    return { port: Number(new URL(url).port), url, running };
  }

  const sendBody = (title: string, addresses: readonly string[] = everyone) => ({
    app_url: APP_URL,
    wallet_addresses: addresses,
    title,
    message: 'scale-out test',
  });
  const stored = async (title: string) =>
    (
      await admin.query<{ n: number; wallets: number }>(
        'select count(*)::int as n, count(distinct wallet_address)::int as wallets from notifications where title = $1',
        [title],
      )
    ).rows[0]!;

  beforeAll(async () => {
    const server = new pg.Client({ connectionString: postgresUrl });
    await server.connect();
    await server.query(`create database ${database}`);
    await server.end();
    const url = new URL(postgresUrl!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();

    // The project and the pins, written through the service's own code, then closed: from here on
    // only the three processes touch the store.
    const setup = await buildPlatformApp({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      databaseUrl,
      rateLimit: 20,
      trustProxy: false,
      chainId: 31337,
    });
    const project = await setup.platform.admin.createProject({
      name: 'Scale-out',
      appUrl: APP_URL,
      whitelisted: true,
    });
    apiKey = project.apiKey;
    let t = Date.now();
    for (const address of everyone)
      await setup.platform.preferences.pin(APP_URL, address, { notificationsEnabled: true, now: t++ });
    await setup.close();
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();

    for (let i = 0; i < 3; i++) instances.push(await startInstance());
    nginx = await startNginx(instances.map((i) => `127.0.0.1:${i.port}`));
  }, 120_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await nginx?.stop();
    for (const instance of instances) {
      instance.running.child.kill('SIGTERM');
      await instance.running.exited;
    }
    await admin?.end();
    if (postgresUrl) {
      const server = new pg.Client({ connectionString: postgresUrl });
      await server.connect();
      await server.query(`drop database if exists ${database} with (force)`);
      await server.end();
    }
  }, 60_000);

  it('holds one rate-limit budget per client IP across the three instances', async () => {
    const users = (from: string, headers: Record<string, string> = {}) =>
      request(nginx.url, 'GET', `/api/v1/notifications/app/users?app_url=${encodeURIComponent(APP_URL)}`, {
        from,
        headers: { 'x-api-key': apiKey, ...headers },
      });
    // 30 requests from one address, round-robin over three instances: 20 in budget, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await users('127.0.10.2')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual(Array(10).fill(429));
    const refused = await users('127.0.10.2');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, error: 'Too Many Requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Writing X-Forwarded-For does not buy a new budget: nginx replaces it with the peer address.
    expect((await users('127.0.10.2', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    // Another client address has its own budget.
    expect((await users('127.0.10.3')).status).toBe(200);
  });

  it('dedupes the same send made through two instances at once', async () => {
    const streamA = await openStream(instances[2]!.url, await signIn(instances[2]!.url, wallets[0]!));
    streams.push(streamA);
    const body = sendBody('twice at once', everyone.slice(0, 50));
    const [a, b] = await Promise.all(
      [instances[0]!, instances[1]!].map((instance, i) =>
        request(instance.url, 'POST', '/api/v1/notifications/send', {
          from: `127.0.11.${i + 2}`,
          headers: { 'x-api-key': apiKey },
          body,
        }),
      ),
    );
    for (const answer of [a!, b!]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, sentCount: 50, failedCount: 0 });
    }
    expect(await stored('twice at once')).toEqual({ n: 50, wallets: 50 });
    await streamA.waitFor('twice at once', 5_000);
    await new Promise((r) => setTimeout(r, 1_500)); // past the outbox lease: no late second push
    expect(streamA.events.filter((e) => e.title === 'twice at once')).toHaveLength(1);
  });

  it('pushes a send through instance A to a stream on instance B, and through nginx unbuffered', async () => {
    const onB = await openStream(instances[1]!.url, await signIn(instances[1]!.url, wallets[1]!));
    const viaNginx = await openStream(nginx.url, await signIn(instances[2]!.url, wallets[2]!));
    streams.push(onB, viaNginx);
    const sentAt = Date.now();
    const answer = await request(instances[0]!.url, 'POST', '/api/v1/notifications/send', {
      from: '127.0.12.2',
      headers: { 'x-api-key': apiKey },
      body: sendBody('from A', [wallets[1]!.address, wallets[2]!.address]),
    });
    expect(answer.body).toMatchObject({ success: true, sentCount: 2 });
    // Live, not the outbox's late push (its lease is 1 s).
    expect((await onB.waitFor('from A', 5_000)).at - sentAt).toBeLessThan(900);
    expect((await viaNginx.waitFor('from A', 5_000)).at - sentAt).toBeLessThan(900);
  });

  it('loses and doubles nothing when the instance handling a 1,000-address send is killed with -9 (20 times)', async () => {
    // Watchers stream from instance 1; the victims alternate between instances 0 and 2, so one
    // restarts while the other is killed.
    const watchers = await Promise.all(
      wallets.map(async (w) => openStream(instances[1]!.url, await signIn(instances[1]!.url, w))),
    );
    streams.push(...watchers);
    const restarting = new Map<number, Promise<Instance>>();
    const send = (base: string, from: string, body: unknown) =>
      request(base, 'POST', '/api/v1/notifications/send', { from, headers: { 'x-api-key': apiKey }, body });
    // A warm instance's full send takes `sendMs`: the kills land from its start to past its end.
    const calibrationStart = Date.now();
    expect((await send(instances[0]!.url, '127.0.13.1', sendBody('calibration'))).status).toBe(200);
    const sendMs = Date.now() - calibrationStart;

    const outcomes = { answeredBeforeKill: 0, storedBeforeKill: 0, nothingStoredBeforeKill: 0, sendMs };
    for (let rep = 1; rep <= 20; rep++) {
      const index = rep % 2 === 1 ? 0 : 2;
      const pending = restarting.get(index);
      if (pending) {
        const again = await pending;
        instances[index]!.running = again.running;
        restarting.delete(index);
        // Warm the restarted process (pool, code paths), as a long-running instance is.
        await send(again.url, `127.0.14.${rep + 1}`, sendBody(`warm-up ${rep}`, [audience[0]!]));
      }
      const victim = instances[index]!;
      const title = `killed send ${rep}`;
      const body = sendBody(title);
      const from = `127.0.13.${rep + 1}`;
      const first = send(victim.url, from, body).then(
        (a) => a,
        () => undefined,
      );
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * sendMs * 1.2)));
      victim.running.child.kill('SIGKILL');
      await victim.running.exited;
      if ((await first)?.status === 200) outcomes.answeredBeforeKill++;

      // All or nothing: the send's one storing statement committed whole, or not at all.
      const before = await stored(title);
      expect([0, 1000]).toContain(before.n);
      expect(before.wallets).toBe(before.n);
      if (before.n === 1000) outcomes.storedBeforeKill++;
      else outcomes.nothingStoredBeforeKill++;

      // Restart the victim on its port (nginx's upstream) in the background.
      restarting.set(index, startInstance(victim.port));

      // The caller retries the same body through nginx: it reaches a live instance.
      const retry = await send(nginx.url, from, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ success: true, sentCount: 1000, failedCount: 0 });
      expect(await stored(title)).toEqual({ n: 1000, wallets: 1000 });

      // Each watcher gets it live: from the retry, or from another instance's outbox relay when
      // the push died with the victim after the commit.
      for (const watcher of watchers) await watcher.waitFor(title, 10_000);
    }
    for (const [index, pending] of restarting) instances[index]!.running = (await pending).running;
    await new Promise((r) => setTimeout(r, 1_500)); // past the outbox lease: no late second push
    for (const watcher of watchers) {
      for (let rep = 1; rep <= 20; rep++)
        expect(watcher.events.filter((e) => e.title === `killed send ${rep}`)).toHaveLength(1);
    }
    console.log(`kill -9 mid-send, 20 repetitions: ${JSON.stringify(outcomes)}`);
  }, 240_000);
});
