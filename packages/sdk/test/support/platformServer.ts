/**
 * A real platform server for the SDK's tests: the built CLI's `wharf serve` (the SDK may not
 * import @wharf/platform, and a real process is what developers call) on a free port in a
 * temporary data directory. Skipped by the callers when packages/cli/dist is missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
export const cliBin = path.join(repoRoot, 'packages/cli/dist/bin.js');
export const cliBuilt = fs.existsSync(cliBin);

export interface RunningPlatform {
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

export async function startPlatform(extraArgs: string[] = [], timeoutMs = 30_000): Promise<RunningPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-sdk-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [cliBin, 'serve', '--port', '0', '--data-dir', dataDir, ...extraArgs],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  while (!/Admin token: \S+/.test(out)) {
    if (child.exitCode !== null) throw new Error(`wharf serve exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`wharf serve did not start in ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /Platform\s+(http:\/\/\S+)/.exec(out)?.[1];
  const adminToken = /Admin token: (\S+)/.exec(out)?.[1];
  if (!url || !adminToken) throw new Error(`cannot read the banner:\n${out}`);
  return {
    url,
    adminToken,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
