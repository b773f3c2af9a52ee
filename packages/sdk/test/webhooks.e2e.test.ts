/**
 * Webhooks end to end, as an app developer meets them: a real `wharf up` (the built CLI), the
 * webhook set with `wharf project webhook` (the secret printed once), a user pinning through the
 * client API (this SDK's platform client, SIWE), a receiver that checks every request with
 * verifyWebhook. `wharf up` is killed (SIGKILL) after a change is committed and before its event is
 * delivered; started again on the same data directory, it delivers the event.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlatformClient, verifyWebhook, type WebhookEvent } from '../src/index.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const cliBin = path.join(repoRoot, 'packages/cli/dist/bin.js');
const appUrl = 'http://localhost:5173';
const user = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

async function up(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      cliBin,
      'up',
      '--port',
      '0',
      '--chain-port',
      '0',
      '--data-dir',
      dataDir,
      '--rate-limit',
      '600',
      '--webhook-retry-schedule',
      '200ms,500ms',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const deadline = Date.now() + 60_000;
  const urlOf = () => /Platform\s+(http:\/\/\S+)/.exec(out)?.[1];
  while (!urlOf()) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`wharf up did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: urlOf()!, child };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

interface Receiver {
  url: string;
  events: WebhookEvent[];
  refused: string[];
  up(): Promise<void>;
  down(): Promise<void>;
}

async function receiver(secret: () => string): Promise<Receiver> {
  let server: Server | undefined;
  let port = 0;
  const r: Receiver = {
    url: '',
    events: [],
    refused: [],
    async up() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', async () => {
          try {
            r.events.push(
              await verifyWebhook(Buffer.concat(chunks), req.headers['x-wharf-signature'], secret()),
            );
            res.statusCode = 204;
          } catch (error) {
            r.refused.push((error as Error).message);
            res.statusCode = 400;
          }
          res.end();
        });
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${port}/webhooks`;
    },
    async down() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await r.up();
  return r;
}

const waitFor = async (check: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.skipIf(!fs.existsSync(cliBin))('webhooks from a running wharf up', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-sdk-webhooks-'));
  let child: ChildProcess | undefined;
  let hooks: Receiver | undefined;
  afterAll(async () => {
    if (child) await stop(child, 'SIGKILL');
    await hooks?.down();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers verified events, and one committed before a crash after the restart', async () => {
    let platform = await up(dataDir);
    child = platform.child;
    const cli = async (...args: string[]) =>
      JSON.parse(
        (await promisify(execFile)(process.execPath, [cliBin, ...args, '--data-dir', dataDir])).stdout,
      );
    const { projectId } = await cli(
      'project',
      'create',
      '--name',
      'Hooks',
      '--app-url',
      appUrl,
      '--whitelisted',
    );
    let secret = '';
    hooks = await receiver(() => secret);
    ({ secret } = await cli('project', 'webhook', '--project', projectId, '--url', hooks.url));
    expect(secret).toMatch(/^whsec_/);

    const client = createPlatformClient({ baseUrl: platform.url });
    await client.signIn({
      address: user.address,
      chainId: 31337,
      signMessage: (message) => user.signMessage({ message }),
    });
    await client.pin(appUrl);
    await client.pin(appUrl); // a no-op: no event
    await waitFor(() => hooks!.events.length >= 1, 10_000, 'miniapp_added');
    expect(hooks.events[0]).toMatchObject({
      event: 'miniapp_added',
      appUrl,
      walletAddress: user.address,
      notificationsEnabled: true,
    });

    // The receiver is down; the change commits (the API answered); the platform dies at once.
    await hooks.down();
    await client.setNotifications(appUrl, false);
    await stop(platform.child, 'SIGKILL');
    await hooks.up();

    platform = await up(dataDir);
    child = platform.child;
    await waitFor(() => hooks!.events.length >= 2, 30_000, 'notifications_disabled after the restart');
    await new Promise((r) => setTimeout(r, 1000));
    expect(hooks.events.map((e) => e.event)).toEqual(['miniapp_added', 'notifications_disabled']);
    expect(hooks.events[1]).toMatchObject({ walletAddress: user.address, notificationsEnabled: false });
    expect(hooks.refused).toEqual([]);

    // A receiver holding a wrong secret refuses the platform's requests (the platform then retries).
    secret = 'whsec_not_the_secret';
    // The session outlives the restart (it is in the store); the platform listens on a new port.
    await createPlatformClient({ baseUrl: platform.url, token: client.token }).unpin(appUrl);
    await waitFor(() => hooks!.refused.length >= 1, 10_000, 'a refused delivery');
    expect(hooks.refused[0]).toContain('does not match');
    await stop(platform.child, 'SIGINT');
  }, 180_000);
});
