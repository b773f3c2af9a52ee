// First run: registers the example with the local platform through the `wharf` CLI (the same
// commands a developer types): a whitelisted project for the app's URL, then its webhook, whose
// signing secret is printed once and so is kept in .env at once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `wharf <args> --data-dir <dir>` and parses the JSON it prints. */
async function wharf(repoRoot, dataDir, args) {
  const cli = path.join(repoRoot, 'packages/cli/dist/bin.js');
  const { stdout } = await run(process.execPath, [cli, ...args, '--data-dir', dataDir], { cwd: repoRoot });
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

/**
 * @param {{ repoRoot: string, dataDir: string, name: string, appUrl: string, webhookUrl: string }} o
 * @returns {Promise<{ WHARF_PROJECT_ID: string, WHARF_API_KEY: string, WHARF_WEBHOOK_SECRET: string, EXAMPLE_APP_URL: string }>}
 */
export async function registerWithPlatform(o) {
  const project = await wharf(o.repoRoot, o.dataDir, [
    'project',
    'create',
    '--name',
    o.name,
    '--app-url',
    o.appUrl,
    '--whitelisted',
  ]);
  const webhook = await wharf(o.repoRoot, o.dataDir, [
    'project',
    'webhook',
    '--project',
    project.projectId,
    '--url',
    o.webhookUrl,
  ]);
  if (!project.apiKey || !webhook.secret)
    throw new Error('wharf did not print an API key and a webhook secret');
  return {
    WHARF_PROJECT_ID: project.projectId,
    WHARF_API_KEY: project.apiKey,
    WHARF_WEBHOOK_SECRET: webhook.secret,
    EXAMPLE_APP_URL: o.appUrl,
  };
}
