/** Runs the built `wharf` binary (dist/, built by `npm run typecheck` / `npm run build`) as a user would. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const bin = path.resolve(import.meta.dirname, '../dist/bin.js');
/** The committed bin npm links as `wharf` (a shell script that execs node on `bin`). */
export const shim = path.resolve(import.meta.dirname, '../bin/wharf');

export function wharf(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function tempDir(prefix = 'wharf-cli-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Spawns a long-running command and resolves once its stdout matches `ready`. `viaShim`: through
 * the committed bin (as `npx wharf` runs it) instead of node on dist/bin.js.
 */
export async function startWharf(
  args: string[],
  ready: RegExp,
  timeoutMs = 20_000,
  env: NodeJS.ProcessEnv = {},
  viaShim = false,
): Promise<Running> {
  const [cmd, first] = viaShim ? [shim, []] : [process.execPath, [bin]];
  const child = spawn(cmd, [...first, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready after ${timeoutMs} ms:\n${out}\n${err}`)),
      timeoutMs,
    );
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${out}\n${err}`));
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Stops a command `startWharf` started, if it is still running (a test's afterEach). */
export async function stopWharf(
  running: Running | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (running && running.child.exitCode === null) {
    running.child.kill(signal);
    await running.exited;
  }
}
