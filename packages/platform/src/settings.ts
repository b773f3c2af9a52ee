/**
 * The platform server's settings without the server: the defaults of its limits and the parsers
 * of its security-relevant flags. `@wharf/platform/settings` — the CLI reads it at flag
 * parsing, before (and without) loading fastify and the stores.
 */
export { parsePublicUrl } from './auth/publicOrigin.js';
export { parseTrustProxy, type TrustProxy } from './http/trustProxy.js';
export { platformLimitDefaults } from './options.js';
