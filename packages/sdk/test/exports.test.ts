/** The public API, pinned: additions only (every earlier name stays). */
import { expect, it } from 'vitest';
import * as sdk from '../src/index.js';

it('exports exactly these names', () => {
  expect(Object.keys(sdk).sort()).toEqual([
    'API_VERSION',
    'ERROR_CODE_HEADER',
    'MAX_ADDRESSES_PER_REQUEST',
    'WEBHOOK_SIGNATURE_HEADER',
    'WebhookVerificationError',
    'WharfApiError',
    'apiErrorCodes',
    'createDashboardClient',
    'createNotificationsClient',
    'createPlatformClient',
    'formatSiweMessage',
    'verifyWebhook',
    'webhookVerificationReasons',
  ]);
});
