/**
 * The error registry (src/errors.ts) and docs/errors.md list exactly the same codes, each with
 * the same status and `error`; every error answer names its code in `x-wharf-error-code` (what
 * the SDK's `WharfApiError.code` reads), while the body keeps the spec's shape.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { errorCodes } from '../src/index.js';
import { APP_URL, addressOf, backends, cleanupBackends, startApp } from './helpers.js';

afterAll(cleanupBackends);

const doc = fs.readFileSync(path.join(import.meta.dirname, '../docs/errors.md'), 'utf8');
const documented = doc
  .split('\n')
  .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
  .map((line) =>
    line
      .split('|')
      .slice(1, 4)
      .map((cell) => cell.trim().replace(/^`|`$/g, '')),
  );

it('docs/errors.md lists every code of the registry and no other, with its status and error', () => {
  expect(documented.map(([code]) => code).sort()).toEqual(Object.keys(errorCodes).sort());
  for (const [code, status, error] of documented) {
    expect(errorCodes[code as keyof typeof errorCodes], code).toEqual({ status: Number(status), error });
  }
});

it('error answers carry the registry code in x-wharf-error-code', async () => {
  const t = await startApp(backends[0]!);
  try {
    const send = (payload: unknown, key = t.apiKey) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/send',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    const valid = { app_url: APP_URL, wallet_addresses: [addressOf(1)], title: 't', message: 'm' };
    const cases: Array<
      [Promise<{ statusCode: number; headers: Record<string, unknown>; json(): any }>, number, string]
    > = [
      [send({ ...valid, title: '' }), 400, 'VALIDATION_FAILED'],
      [send('{not json'), 400, 'MALFORMED_BODY'],
      [send(valid, 'wharf_nope'), 401, 'API_KEY_INVALID'],
      [send({ ...valid, app_url: 'https://other.example' }), 403, 'APP_URL_NOT_OWNED'],
      [t.app.inject({ method: 'GET', url: '/api/v1/nowhere' }), 404, 'NOT_FOUND'],
    ];
    for (const [answer, status, code] of cases) {
      const res = await answer;
      expect(res.statusCode, code).toBe(status);
      expect(res.headers['x-wharf-error-code'], code).toBe(code);
      expect(Object.keys(res.json()).sort(), code).toEqual(['error', 'message', 'success']);
    }
  } finally {
    await t.close();
  }
});
