import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startWharf, tempDir, wharf } from './run-cli.js';

/**
 * The operator's commands (`wharf project|app|key`) against the store of a running platform:
 * each change is visible to the developer API at once, as the design says.
 */
describe('wharf project, app and key, while the platform runs', () => {
  const dataDir = tempDir();
  let running: Running;
  let platform: string;

  beforeAll(async () => {
    running = await startWharf(
      ['serve', '--port', '0', '--data-dir', dataDir, '--rate-limit', '1000'],
      /Platform\s+http/,
    );
    platform = /Platform\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())![1];
  });
  afterAll(async () => {
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
  });

  const json = (args: string[]) => {
    const r = wharf([...args, '--data-dir', dataDir]);
    if (r.code !== 0) throw new Error(`wharf ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const send = (key: string, appUrl: string) =>
    fetch(`${platform}/api/v1/notifications/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        app_url: appUrl,
        wallet_addresses: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'],
        title: 'Hello',
        message: 'From the operator test',
      }),
    });

  it('creates a project whose key works, gated by the whitelist', async () => {
    const created = json(['project', 'create', '--name', 'Demo', '--app-url', 'https://Demo.example:443/']);
    expect(created).toMatchObject({
      projectId: expect.any(String),
      apiKey: expect.any(String),
      whitelisted: false,
    });
    expect(created.appUrls).toEqual(['https://demo.example']);

    const refused = await send(created.apiKey, 'https://demo.example');
    expect(refused.status).toBe(403);

    expect(json(['project', 'whitelist', created.projectId])).toMatchObject({ whitelisted: true });
    const ok = await send(created.apiKey, 'https://demo.example');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: false, sentCount: 0, failedCount: 1 });

    json(['project', 'unwhitelist', created.projectId]);
    expect((await send(created.apiKey, 'https://demo.example')).status).toBe(403);
  });

  it('adds and removes app URLs', async () => {
    const created = json([
      'project',
      'create',
      '--name',
      'Two',
      '--app-url',
      'https://two.example',
      '--whitelisted',
    ]);
    expect((await send(created.apiKey, 'https://other.example')).status).toBe(403);
    const added = json(['app', 'add', '--project', created.projectId, '--app-url', 'https://other.example']);
    expect(added.appUrls).toEqual(expect.arrayContaining(['https://two.example', 'https://other.example']));
    expect((await send(created.apiKey, 'https://other.example')).status).toBe(200);
    json(['app', 'remove', '--project', created.projectId, '--app-url', 'https://other.example']);
    expect((await send(created.apiKey, 'https://other.example')).status).toBe(403);
  });

  it('rotates a key: the old one answers 401 at once, the new one works', async () => {
    const created = json([
      'project',
      'create',
      '--name',
      'Rot',
      '--app-url',
      'https://rot.example',
      '--whitelisted',
    ]);
    const rotated = json(['key', 'rotate', '--project', created.projectId]);
    expect(rotated.apiKey).not.toBe(created.apiKey);
    expect((await send(created.apiKey, 'https://rot.example')).status).toBe(401);
    expect((await send(rotated.apiKey, 'https://rot.example')).status).toBe(200);
    json(['key', 'revoke', '--project', created.projectId]);
    expect((await send(rotated.apiKey, 'https://rot.example')).status).toBe(401);
  });

  it('deletes a project: its key answers 404 from that moment on', async () => {
    const created = json([
      'project',
      'create',
      '--name',
      'Gone',
      '--app-url',
      'https://gone.example',
      '--whitelisted',
    ]);
    expect((await send(created.apiKey, 'https://gone.example')).status).toBe(200);
    json(['project', 'delete', created.projectId]);
    expect((await send(created.apiKey, 'https://gone.example')).status).toBe(404);
  });

  it('refuses bad input plainly and exits non-zero', () => {
    const bad = wharf(['project', 'create', '--name', 'X', '--app-url', 'ftp://nope', '--data-dir', dataDir]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/app.?url/i);
    const missing = wharf(['project', 'whitelist', 'NOSUCHPROJECT', '--data-dir', dataDir]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/NOSUCHPROJECT does not exist|not found/i);
    const noName = wharf(['project', 'create', '--app-url', 'https://x.example', '--data-dir', dataDir]);
    expect(noName.code).not.toBe(0);
    expect(noName.stderr).toMatch(/--name/);
  });

  it('sets a webhook (the secret printed once), shows it, rotates the secret, refuses a bad URL, removes it', () => {
    const { projectId } = json([
      'project',
      'create',
      '--name',
      'Hooks',
      '--app-url',
      'https://hooks.example',
    ]);
    const set = json([
      'project',
      'webhook',
      '--project',
      projectId,
      '--url',
      'http://localhost:4000/webhooks',
    ]);
    expect(set).toEqual({
      projectId,
      url: 'http://localhost:4000/webhooks',
      secret: expect.stringMatching(/^whsec_/),
    });
    const again = json(['project', 'webhook', '--project', projectId, '--url', 'https://hooks.example/w']);
    expect(again).toEqual({ projectId, url: 'https://hooks.example/w' });
    const shown = json(['project', 'webhook', '--project', projectId]);
    expect(shown).toMatchObject({ projectId, url: 'https://hooks.example/w', previousSecretExpiresAt: null });
    expect(JSON.stringify(shown)).not.toContain('whsec_');
    const rotated = json(['project', 'webhook', '--project', projectId, '--rotate-secret']);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(set.secret);
    expect(json(['project', 'webhook', '--project', projectId]).previousSecretExpiresAt).toEqual(
      expect.any(String),
    );

    const bad = wharf([
      'project',
      'webhook',
      '--project',
      projectId,
      '--url',
      'ftp://x',
      '--data-dir',
      dataDir,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('url must be an absolute http(s) URL');
    expect(json(['project', 'webhook', '--project', projectId, '--remove'])).toEqual({
      projectId,
      removed: true,
    });
    expect(json(['project', 'webhook', '--project', projectId]).url).toBeNull();
  }, 90_000);

  it('never prints a key hash or a key in the logs', () => {
    expect(running.stderr()).not.toMatch(/wharf_[A-Za-z0-9_-]{20,}/);
    expect(running.stderr()).not.toMatch(/[0-9a-f]{64}/);
  });
});
