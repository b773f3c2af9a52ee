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
      expect(doc.components.securitySchemes.apiKey).toEqual({
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
});
