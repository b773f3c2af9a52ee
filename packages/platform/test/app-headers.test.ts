/**
 * The web app's pages carry a Content-Security-Policy with `frame-ancestors 'none'` (issue 29,
 * Low): no other site may frame the app (and its approval dialogs). Mini apps are framed BY the
 * app, so frame-src stays open to http(s).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { backends, cleanupBackends, type ListeningApp, listenApp, rawRequest } from './helpers.js';

afterAll(cleanupBackends);

describe('web app headers', () => {
  let t: ListeningApp;
  const webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-web-'));
  fs.writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>wharf</title>');
  afterEach(async () => {
    await t?.close();
  });
  afterAll(() => fs.rmSync(webRoot, { recursive: true, force: true }));

  it('pages and client-side routes: CSP frame-ancestors none, X-Frame-Options DENY; the API has no page headers', async () => {
    t = await listenApp(backends[0]!, { webRoot });
    for (const url of ['/', '/dashboard', '/apps/x']) {
      const res = await rawRequest(`${t.url}${url}`);
      expect(res.status, url).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain('frame-src http: https:');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    const api = await rawRequest(`${t.url}/api/v1/client/config`);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });
});
