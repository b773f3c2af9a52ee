// The example mini app: builds its front end (web/) with Vite, serves it and its API on its own
// origin, and on first run registers itself with the local wharf platform (examples/mini-app/.env).
//
//   npm start            # the platform (wharf up), in one terminal
//   npm run example      # this app, in another: http://localhost:5175
//
// Settings (environment): EXAMPLE_PORT (5175), WHARF_URL (http://127.0.0.1:3000), WHARF_DATA_DIR
// (./.wharf, the platform's data directory, for the first-run registration), EXAMPLE_ENV_FILE.
import fs from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { createNotificationsClient } from '@wharf/sdk';
import { build } from 'vite';
import { readEnvFile, writeEnvFile } from './server/envFile.mjs';
import { registerWithPlatform } from './server/register.mjs';
import { createApi } from './server/routes.mjs';
import { createSessions } from './server/sessions.mjs';

const here = import.meta.dirname;
const repoRoot = path.resolve(here, '../..');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/**
 * @param {{ port?: number, wharfUrl?: string, dataDir?: string, envFile?: string, quiet?: boolean }} [options]
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function startExample(options = {}) {
  const port = options.port ?? Number(process.env.EXAMPLE_PORT ?? 5175);
  const wharfUrl = options.wharfUrl ?? process.env.WHARF_URL ?? 'http://127.0.0.1:3000';
  const dataDir = path.resolve(repoRoot, options.dataDir ?? process.env.WHARF_DATA_DIR ?? '.wharf');
  const envFile = options.envFile ?? process.env.EXAMPLE_ENV_FILE ?? path.join(here, '.env');
  const log = options.quiet ? () => {} : (/** @type {string} */ line) => console.log(line);

  const outDir = path.join(here, 'dist');
  await build({ root: path.join(here, 'web'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });

  let env = readEnvFile(envFile);
  const newClient = () => createNotificationsClient({ baseUrl: wharfUrl, apiKey: env.WHARF_API_KEY ?? '' });
  let sdk = newClient();
  const api = createApi({
    client: () => sdk, // replaced once the first run has the key
    sessions: createSessions(),
    config: () => ({ appUrl: env.EXAMPLE_APP_URL ?? '', webhookSecret: env.WHARF_WEBHOOK_SECRET ?? '' }),
  });

  const server = createServer(async (req, res) => {
    if (await api(req, res)) return;
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = path.join(outDir, path.normalize(name));
    if (!file.startsWith(outDir) || !fs.existsSync(file) || fs.statSync(file).isDirectory())
      file = path.join(outDir, 'index.html'); // the app's own paths (/orders/7) load the page
    res.writeHead(200, {
      'content-type': TYPES[/** @type {keyof TYPES} */ (path.extname(file))] ?? 'text/plain',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  // localhost, not 127.0.0.1: its own site, apart from the platform's.
  const url = `http://localhost:${address.port}`;

  if (!env.WHARF_API_KEY || env.EXAMPLE_APP_URL !== url) {
    log(`Registering ${url} with the platform (data dir ${dataDir}) ...`);
    env = await registerWithPlatform({
      repoRoot,
      dataDir,
      name: 'Example mini app',
      appUrl: url,
      webhookUrl: `http://127.0.0.1:${address.port}/api/webhook`,
    });
    env.WHARF_URL = wharfUrl;
    writeEnvFile(envFile, env, 'Written by the example on first run; delete it to register again.');
    sdk = newClient();
    log(`Registered project ${env.WHARF_PROJECT_ID}; its key and webhook secret are in ${envFile}`);
  }
  log(`Example mini app  ${url}`);
  log(`Open it in the platform: ${wharfUrl}/open?url=${encodeURIComponent(`${url}/`)}`);
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] === import.meta.filename) {
  startExample().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
