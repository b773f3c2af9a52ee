/** The public API, pinned: the CLI consumes these names. */
import { expect, it } from 'vitest';
import * as notifications from '../src/index.js';

it('exports exactly these names', () => {
  expect(Object.keys(notifications).sort()).toEqual([
    'DeliveryUnavailableError',
    'ServiceError',
    'buildPlatformApp',
    'createAdmin',
    'defaultPlatformServerOptions',
    'errorCodes',
    'openAdmin',
    'redactPaths',
    'startPlatformServer',
  ]);
});
