/**
 * A listening server on a duplicate of another thread's listening socket (`fd`), for a front
 * thread. Listening on `fd` itself would let two threads hold one descriptor: each closes it
 * when it stops, and the second close may hit an unrelated file that took the number meanwhile
 * (LevelDB opens files on other threads). Node 20 cannot duplicate a descriptor, nor listen with
 * SO_REUSEPORT; what it can do is pass a listening socket over an IPC channel, which gives the
 * receiver a descriptor of its own (SCM_RIGHTS). So a short-lived child process gets the socket
 * as its fd 3 and sends it back: the server that arrives here is a copy that this thread alone
 * closes (docs/decisions/0330-front-threads.md).
 */
import { spawn } from 'node:child_process';
import type { Server } from 'node:net';

const CHILD = `
const s = require('node:net').createServer();
s.on('error', (e) => { process.send({ error: e.message }); process.exit(1); });
s.listen({ fd: 3 }, () => process.send('socket', s, () => process.exit(0)));
`;

/** The copy, listening; rejects if the child fails or takes longer than `timeoutMs`. */
export function listenOnCopy(fd: number, timeoutMs: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=commonjs', '-e', CHILD], {
      stdio: ['ignore', 'ignore', 'inherit', fd, 'ipc'],
      // Only what it needs: no loaders or test runners' options.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the listening socket's copy did not arrive within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('message', (m: unknown, server?: Server) => {
      clearTimeout(timer);
      if (server) resolve(server);
      else
        reject(new Error(`could not listen on the socket's copy: ${(m as { error?: string })?.error ?? m}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the process copying the listening socket exited (${code})`));
    });
  });
}
