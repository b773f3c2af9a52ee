/**
 * Starts the real platform for browser tests: the built CLI's `wharf up` on free ports in a
 * temporary data directory (the app may not import @wharf/platform, and a real process is
 * what people run). Parses the banner for the URLs and the admin token; stops with SIGINT.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(import.meta.dirname, '../../../..');
export const cliBin = path.join(repoRoot, 'packages/cli/dist/bin.js');
export const appDist = path.join(repoRoot, 'packages/app/dist/index.html');

export interface RunningWharf {
  url: string;
  adminToken: string;
  rpcUrl?: string;
  dataDir: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startWharf(timeoutMs = 60_000): Promise<RunningWharf> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-app-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    // A larger rate budget: every test in a file shares one IP's notification budget (20 a minute).
    [cliBin, 'up', '--port', '0', '--chain-port', '0', '--data-dir', dataDir, '--rate-limit', '600'],
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
    if (child.exitCode !== null) throw new Error(`wharf up exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`wharf up did not print its banner in ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = /Platform\s+(http:\/\/\S+)/.exec(out)?.[1];
  const adminToken = /Admin token: (\S+)/.exec(out)?.[1];
  const rpcUrl = /Chain RPC\s+(http:\/\/\S+)/.exec(out)?.[1];
  if (!url || !adminToken) throw new Error(`cannot read the banner:\n${out}`);
  return {
    url,
    adminToken,
    rpcUrl,
    dataDir,
    output: () => out,
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

/** `wharf project create ... --data-dir` against the running platform; returns its JSON. */
export async function createProject(
  dataDir: string,
  name: string,
  appUrl: string,
): Promise<{ projectId: string; apiKey: string; appUrls: string[] }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      cliBin,
      'project',
      'create',
      '--name',
      name,
      '--app-url',
      appUrl,
      '--whitelisted',
      '--data-dir',
      dataDir,
    ],
    { cwd: repoRoot },
  );
  const start = stdout.indexOf('{');
  return JSON.parse(stdout.slice(start));
}

/** A second chain (`wharf chain start`) for tests that add and switch chains. */
export async function startChain(
  chainId: number,
  timeoutMs = 30_000,
): Promise<{ rpcUrl: string; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-app-chain-'));
  const child = spawn(
    process.execPath,
    [cliBin, 'chain', 'start', '--port', '0', '--chain-id', String(chainId), '--data-dir', dataDir],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
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
  const rpcOf = () => /Chain RPC\s+(http:\/\/\S+)/.exec(out)?.[1];
  while (!rpcOf()) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`wharf chain start did not come up:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const rpcUrl = rpcOf()!;
  return {
    rpcUrl,
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
