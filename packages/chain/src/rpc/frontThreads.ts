/**
 * Front threads (docs/decisions/0330-front-threads.md): worker threads that accept connections
 * on the node's port beside the main thread (each on a copy of its listening socket: the kernel
 * hands each new connection to one of the threads waiting), answer the common state reads from
 * their replicas, and send the main thread everything else: a request as its raw body (answered
 * here as if it came on a socket of this thread, through the same queue), a connection the lean
 * front does not serve as a tunnel to Node's HTTP server here (tunnelSocket.ts).
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { FromWorker, FrontWorkerData, ToWorker } from './frontProtocol.js';
import type { ReplicaPublisher } from './replicaPublisher.js';
import { TunnelSocket } from './tunnelSocket.js';
import { workerLimits } from '../workerLimits.js';
import { builtScript } from '../builtScript.js';

export interface FrontThreadsOptions {
  count: number;
  /** The main thread's listening socket. */
  fd: number;
  publisher: ReplicaPublisher;
  /** The lean front's settings and limits, as the main thread's. */
  front: Omit<
    FrontWorkerData,
    | 'fd'
    | 'index'
    | 'threads'
    | 'version'
    | 'statePort'
    | 'start'
    | 'cacheEntries'
    | 'cacheCodeBytes'
    | 'maxUnsentBytes'
  > & { maxUnsentBytes: number };
  /** A forwarded request: answer it as one read on a socket of this thread. */
  onRequest(body: Buffer, client: string | undefined, reply: (status: number, text?: string) => void): void;
  /** A tunnelled connection, for Node's HTTP server; `rest` was read before it. */
  onConnection(socket: TunnelSocket, rest: Buffer): void;
  /** A worker that failed to start or stopped unexpectedly. */
  onError(message: string): void;
  /** Every thread that was listening has stopped unexpectedly: nothing accepts connections now. */
  onNone(): void;
}

/** Values a worker caches per view before starting over (an account or a slot each). */
const CACHE_ENTRIES = 500_000;
const CACHE_CODE_BYTES = 64 * 1024 * 1024;
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

class FrontThread {
  private readonly tunnels = new Map<number, TunnelSocket>();
  private stopped?: () => void;
  /** stop() was called: an exit from here on is expected. */
  stopping = false;
  /** The thread's id in the kernel (Linux). */
  tid?: number;

  constructor(
    readonly index: number,
    readonly worker: Worker,
    readonly statePort: MessagePort,
    private readonly o: FrontThreadsOptions,
  ) {
    worker.on('message', (m: FromWorker) => this.onMessage(m));
  }

  post = (m: ToWorker, transfer?: ArrayBuffer[]): void => {
    this.worker.postMessage(m, transfer ?? []);
  };

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'rpc': {
        const body = Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength);
        // The answer is read at this state or a later one: stamped with this version, a value
        // the worker keeps is dropped again by any change it may not show.
        const v = this.o.publisher.sync();
        this.o.onRequest(body, m.client, (status, text) =>
          this.post({ t: 'rpc', id: m.id, status, text, v }),
        );
        return;
      }
      case 'open': {
        const s = new TunnelSocket(m.id, this.post, m);
        this.tunnels.set(m.id, s);
        s.once('close', () => this.tunnels.delete(m.id));
        this.o.onConnection(s, Buffer.from(m.rest.buffer, m.rest.byteOffset, m.rest.byteLength));
        return;
      }
      case 'data':
        this.tunnels.get(m.id)?.incoming(m.chunk);
        return;
      case 'end':
        this.tunnels.get(m.id)?.remoteEnd();
        return;
      case 'close':
        this.tunnels.get(m.id)?.remoteClose();
        return;
      case 'sent':
        this.tunnels.get(m.id)?.sent();
        return;
      case 'stopped':
        this.stopped?.();
        return;
      case 'failed':
        this.o.onError(`a front thread could not start: ${m.message}`);
        return;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.tunnels.values()) t.destroy();
    const done = new Promise<void>((resolve) => {
      this.stopped = resolve;
      this.worker.once('exit', () => resolve());
    });
    this.post({ t: 'stop' });
    const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    await Promise.race([done, grace]);
    this.o.publisher.stopped(this.index);
    this.o.publisher.detach(this.statePort);
    this.statePort.close();
    await this.worker.terminate();
  }
}

export class FrontThreads {
  private constructor(
    private readonly threads: FrontThread[],
    o: FrontThreadsOptions,
  ) {
    for (const t of threads)
      t.worker.once('exit', (code) => {
        if (t.stopping) return;
        const i = this.threads.indexOf(t);
        if (i >= 0) this.threads.splice(i, 1);
        o.publisher.stopped(t.index);
        o.publisher.detach(t.statePort);
        t.statePort.close();
        o.onError(`a front thread stopped unexpectedly (exit code ${code})`);
        if (this.threads.length === 0) o.onNone();
      });
  }

  get count(): number {
    return this.threads.length;
  }

  /** The threads' ids in the kernel (Linux; empty elsewhere). */
  get threadIds(): number[] {
    return this.threads.map((t) => t.tid).filter((t): t is number => t !== undefined);
  }

  /** Starts `count` threads and waits until each listens; those that cannot are left out. */
  static async start(o: FrontThreadsOptions): Promise<FrontThreads> {
    const script = builtScript(import.meta.url, 'frontWorker.js');
    if (!script) {
      o.onError('front threads are off: the worker script is not built (npm run build)');
      return new FrontThreads([], o);
    }
    const started = await Promise.all(
      Array.from({ length: o.count }, async (_, index) => {
        const { port1, port2 } = new MessageChannel();
        const start = o.publisher.attach(port1);
        const data: FrontWorkerData = {
          ...o.front,
          fd: o.fd,
          index,
          threads: o.count,
          version: o.publisher.version,
          statePort: port2,
          start,
          cacheEntries: CACHE_ENTRIES,
          cacheCodeBytes: CACHE_CODE_BYTES,
        };
        const worker = new Worker(script, {
          workerData: data,
          transferList: [port2],
          resourceLimits: workerLimits(),
        });
        const thread = new FrontThread(index, worker, port1, o);
        const ok = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
          worker.on('message', (m: FromWorker) => {
            if (m.t !== 'listening' && m.t !== 'failed') return;
            clearTimeout(timer);
            if (m.t === 'listening') thread.tid = m.tid;
            resolve(m.t === 'listening');
          });
          worker.once('error', (e) => {
            clearTimeout(timer);
            o.onError(`a front thread failed: ${e.message}`);
            resolve(false);
          });
        });
        if (ok) return thread;
        await thread.stop();
        return undefined;
      }),
    );
    return new FrontThreads(
      started.filter((t): t is FrontThread => t !== undefined),
      o,
    );
  }

  /** Stops every thread: each stops accepting, closes its connections and its socket copy. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}
