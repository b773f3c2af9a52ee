/**
 * Connections accepted with their reads going into one buffer of the thread (Node's `onread`
 * option), for a front thread (frontWorker.ts). By default Node allocates 64 KiB for each read
 * of a socket, shrinks it to what came, wraps it in an ArrayBuffer and a Buffer (which the GC
 * then sweeps) and runs it through the socket's Readable stream to a 'data' event: ~10% of the
 * node's CPU per `eth_getBalance` (docs/decisions/0461-front-thread-reads-into-one-buffer.md).
 * With `onread` libuv reads into the given buffer and a function gets the byte count.
 *
 * Node offers `onread` to `net.connect` only. For accepted connections this replaces the
 * listening handle's `onconnection` and wraps each accepted handle in a `net.Socket` built with
 * `{ handle, onread }`, as `net.connect` builds one: internals of Node's net module (Node 20 and
 * 22 have them so). Where they are not there, nothing is replaced and the caller keeps the
 * server's 'connection' events.
 */
import { type Server, Socket } from 'node:net';

/** Where a connection's bytes go: a view of the shared buffer, valid until the call returns. */
export type ReadSink = (chunk: Buffer) => void;

interface ListeningHandle {
  onconnection(this: ListeningHandle, error: number, client?: object): void;
}

/**
 * From now on, each connection `server` (listening) accepts is given to `onSocket` (no 'connection' event),
 * with `route`: the function its bytes go to, which may be changed at any time (`undefined`:
 * dropped). Returns false, changing nothing, where Node's internals are not as expected or the
 * server is not listening.
 */
export function acceptIntoBuffer(
  server: Server,
  buffer: Buffer,
  onSocket: (socket: Socket, route: (sink: ReadSink | undefined) => void) => void,
): boolean {
  const handle = (server as unknown as { _handle?: ListeningHandle })._handle;
  if (!handle || typeof handle.onconnection !== 'function') return false;
  const accept = handle.onconnection;
  handle.onconnection = function (error, client) {
    // Errors (EMFILE, ...) are Node's to report, as a server 'error' event.
    if (error || !client) return accept.call(this, error, client);
    let sink: ReadSink | undefined;
    const socket = new Socket({
      handle: client,
      allowHalfOpen: (server as Server & { allowHalfOpen?: boolean }).allowHalfOpen === true,
      readable: true,
      writable: true,
      onread: {
        buffer,
        callback: (n: number) => {
          sink?.(buffer.subarray(0, n));
        },
      },
    } as ConstructorParameters<typeof Socket>[0]);
    onSocket(socket, (s) => {
      sink = s;
    });
  };
  return true;
}
