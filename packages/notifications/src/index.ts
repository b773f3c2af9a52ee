/**
 * @wharf/notifications — the platform server: the developer REST API of the notifications
 * service, the client API of the platform app, live delivery, the web app's files and /healthz.
 */
export type { PlatformServerOptions, PlatformServer } from './options.js';
export { defaultPlatformServerOptions } from './options.js';
export { buildPlatformApp, startPlatformServer } from './server.js';
export { openAdmin } from './admin.js';
export type { Admin, AdminStoreOptions, CreatedProject, RotatedKey } from './admin.js';
