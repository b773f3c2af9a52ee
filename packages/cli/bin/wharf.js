#!/usr/bin/env node
// The `wharf` command as npm links it (node_modules/.bin/wharf). npm links bins when it installs,
// before the root's `prepare` builds dist/, so the bin must be a committed file: this one loads
// the built CLI and says what to do when it has not been built.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('wharf: the CLI is not built yet (no packages/cli/dist); run `npm run build`\n');
  process.exit(1);
}
await import(built.href);
