/**
 * Runs Debian's nginx for a test: the site config the docs give (docs/deploy/nginx.conf) with its
 * upstream lines and listen port replaced, inside a minimal main config in a temp dir, as a
 * foreground child process (never a daemon), stopped by the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const nginxBinary = '/usr/sbin/nginx';
export const docsNginxConf = path.resolve(import.meta.dirname, '../../../../docs/deploy/nginx.conf');

/** A TCP port that was free a moment ago (the OS picks it: port 0). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The docs' site config pointed at `upstreams` (host:port) and listening on 127.0.0.1:`port`. */
export function siteConfig(source: string, upstreams: readonly string[], port: number): string {
  const serverLine = /^(\s*)server\s+[\d.]+:\d+(\s+[^;]*)?;\s*$/m;
  const match = serverLine.exec(source);
  if (!match) throw new Error(`${docsNginxConf} has no upstream server line`);
  const indent = match[1];
  const options = match[2] ?? '';
  const withoutServers = source.replace(new RegExp(serverLine.source, 'gm'), '');
  const upstreamOpen = /upstream\s+\w+\s*\{\n/;
  if (!upstreamOpen.test(withoutServers)) throw new Error(`${docsNginxConf} has no upstream block`);
  const listen = /^\s*listen\s+80;\s*$/m;
  if (!listen.test(withoutServers)) throw new Error(`${docsNginxConf} has no "listen 80;" line`);
  return withoutServers
    .replace(
      upstreamOpen,
      (open) => open + upstreams.map((u) => `${indent}server ${u}${options};\n`).join(''),
    )
    .replace(listen, `    listen 127.0.0.1:${port};`);
}

export interface Nginx {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-nginx-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    fs.writeFileSync(
      path.join(dir, 'wharf.conf'),
      siteConfig(fs.readFileSync(docsNginxConf, 'utf8'), upstreams, port),
    );
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        'daemon off;',
        // As root, workers would drop to "nobody" and could not write the temp dir.
        ...(process.getuid?.() === 0 ? ['user root;'] : []),
        'worker_processes 1;',
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        'events { worker_connections 1024; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
        `  include ${dir}/wharf.conf;`,
        '}',
        '',
      ].join('\n'),
    );
    const child = spawn(nginxBinary, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    if (await listening(port, exited)) {
      return {
        url: `http://127.0.0.1:${port}`,
        dir,
        stop: () => stop(child, exited, dir),
      };
    }
    // The port was taken between the probe and nginx's bind (other tests run too): once more.
    if (attempt >= 3 || !/in use/.test(stderr)) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${stderr}`);
    }
  }
}

async function listening(port: number, exited: Promise<number | null>): Promise<boolean> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (let i = 0; i < 100 && !gone; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function stop(child: ChildProcess, exited: Promise<number | null>, dir: string): Promise<void> {
  child.kill('SIGQUIT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  fs.rmSync(dir, { recursive: true, force: true });
}
