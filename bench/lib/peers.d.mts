// Types of peers.mjs for the TypeScript tests (bench/test): the part they use.
export function binMallocSettings(env?: Record<string, string | undefined>): Record<string, string>;
export function freePort(): Promise<number>;
