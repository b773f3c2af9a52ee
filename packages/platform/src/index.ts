/**
 * @wharf/platform — the platform server: the developer REST API of the notifications
 * service, the admin API, the client API of the platform app, live delivery, the web app's files
 * and /healthz.
 */
export type { PlatformServerOptions, PlatformServer } from './options.js';
export { defaultPlatformServerOptions } from './options.js';
export { buildPlatformApp, startPlatformServer, redactPaths } from './server.js';
export type { Platform } from './server.js';
export { openAdmin, createAdmin } from './domain/admin.js';
export type { Admin, AdminStoreOptions, CreatedProject, RotatedKey, ProjectInfo } from './domain/admin.js';
export { ServiceError, errorCodes } from './errors.js';
export type { ErrorCode } from './errors.js';
export type { PreferencesStore, PreferenceStatus } from './preferences/store.js';
export type { DeliveryPath, Notification, DeliveryOutcome } from './delivery/path.js';
export { DeliveryUnavailableError } from './delivery/path.js';
