/** The public API, pinned. */
import { expect, it } from 'vitest';
import * as sdk from '../src/index.js';

it('exports exactly these names', () => {
  expect(Object.keys(sdk).sort()).toEqual([
    'API_VERSION',
    'MAX_ADDRESSES_PER_REQUEST',
    'WEBHOOK_SIGNATURE_HEADER',
    'WebhookVerificationError',
    'WharfApiError',
    'createNotificationsClient',
    'createPlatformClient',
    'formatSiweMessage',
    'verifyWebhook',
  ]);
});
