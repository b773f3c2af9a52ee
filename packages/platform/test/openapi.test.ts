/** The OpenAPI 3.1 document generated from the route schemas. */
import { afterAll, describe, expect, it } from 'vitest';
import { backends, cleanupBackends, startApp } from './helpers.js';

afterAll(cleanupBackends);

describe('OpenAPI', () => {
  it('GET /api/v1/openapi.json describes the three endpoints, their errors and the key header', async () => {
    const t = await startApp(backends[0]!);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/notifications/app/users',
          '/api/v1/notifications/app/user/status',
          '/api/v1/notifications/send',
          '/api/v1/admin/projects',
        ]),
      );
      expect(doc.paths['/healthz']).toBeUndefined();
      const send = doc.paths['/api/v1/notifications/send'].post;
      expect(Object.keys(send.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404', '429', '503']),
      );
      expect(send.security).toEqual([{ apiKey: [] }]);
      expect(doc.components.securitySchemes.apiKey).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
      });
      expect(doc.components.schemas.ErrorBody.required).toEqual(['success', 'error', 'message']);
      const body = send.requestBody.content['application/json'].schema;
      expect(body.properties.title.maxLength).toBe(30);
      expect(body.properties.wallet_addresses.maxItems).toBe(1000);
    } finally {
      await t.close();
    }
  });

  it('GET /api/docs serves Swagger UI from the package under its own CSP, on the same document', async () => {
    const t = await startApp(backends[0]!);
    try {
      const page = await t.app.inject({ method: 'GET', url: '/api/docs' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('<div id="swagger-ui"></div>');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      // Every script is a file of this server (no CDN, nothing inline).
      const scripts = [...page.body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attrs, inline] of scripts) {
        expect(attrs).toMatch(/src="\/api\/docs\/static\//);
        expect(inline.trim()).toBe('');
        const src = /src="([^"]+)"/.exec(attrs)![1];
        expect((await t.app.inject({ method: 'GET', url: src })).statusCode).toBe(200);
      }
      const docs = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
      const main = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(docs.json()).toEqual(main.json());
      expect(docs.json().tags[0].name).toBe('notifications');
      expect(Object.keys(docs.json().paths).some((p) => p.startsWith('/api/docs'))).toBe(false);
      // The page's policy stays in its scope.
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.headers['content-security-policy']).not.toBe(page.headers['content-security-policy']);
    } finally {
      await t.close();
    }
  });
});
