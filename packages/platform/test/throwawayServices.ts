/**
 * A PostgreSQL cluster and a Redis server of the test's own, in a temp dir on free ports, so that
 * a test may stop and restart them without touching the shared servers other tests use.
 * PostgreSQL runs as the `postgres` user when the test runs as root (initdb refuses root).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const pgBin = '/usr/lib/postgresql/15/bin';
export const redisServer = '/usr/bin/redis-server';
export const haveThrowawayServices = fs.existsSync(`${pgBin}/initdb`) && fs.existsSync(redisServer);

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ThrowawayPostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      }
    : {};
  if (asRoot) fs.chownSync(dir, ids.uid!, ids.gid!);
  const run = (bin: string, args: string[]) =>
    execFileSync(`${pgBin}/${bin}`, args, { ...ids, cwd: dir, stdio: 'pipe', timeout: 60_000 });
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-N', '-E', 'UTF8']);
  const pgCtl = (action: 'start' | 'stop') =>
    run(
      'pg_ctl',
      action === 'start'
        ? [
            '-D',
            data,
            '-w',
            '-l',
            path.join(dir, 'log'),
            '-o',
            `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
            'start',
          ]
        : ['-D', data, '-w', '-m', 'fast', 'stop'],
    );
  pgCtl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl('start'),
    stop: () => pgCtl('stop'),
    destroy: () => {
      try {
        pgCtl('stop');
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ThrowawayRedis {
  url: string;
  /** Kills the server (as a crash would) and waits for it to be gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const start = async () => {
    child = spawn(
      redisServer,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const c = child;
    exited = new Promise((resolve) => c.on('exit', resolve));
    await waitForPort(port, 10_000);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop: async () => {
      child?.kill('SIGKILL');
      await exited;
    },
  };
}
