/**
 * The messages between the main thread and the front threads (frontThreads.ts on the main
 * thread, frontWorker.ts in each worker; docs/decisions/0330-front-threads.md). Plain data:
 * they cross a MessagePort.
 */
import type { MessagePort } from 'node:worker_threads';

/** The Int32 slots of the buffer the main thread shares with the front threads. */
export enum FrontCounter {
  /** The state version: bumped after each StateMessage is posted. */
  Version = 0,
  /** Connections the front threads accepted (wrapping at 2^32). */
  Accepted = 1,
  /** Requests they answered without the main thread (wrapping at 2^32). */
  Answered = 2,
  /** The first of MAX_FRONT_THREADS slots: the connections front thread i holds open, at Open + i. */
  Open = 3,
}

/** The most front threads a node runs (`--rpc-threads`). */
export const MAX_FRONT_THREADS = 16;

/** Answers a front thread gives itself; the rest of the values come from the state messages. */
export interface ReplicaConstants {
  /** eth_chainId's answer. */
  chainId: string;
  /** net_version's answer. */
  netVersion: string;
  /** web3_clientVersion's answer. */
  clientVersion: string;
}

/**
 * What changed in the state reads see, posted to every front thread BEFORE the change can be
 * seen anywhere (and before `version` is bumped to `v`). A worker drops what it cached of it.
 */
export interface StateMessage {
  /** 1, 2, 3, ...: applied in order. */
  v: number;
  /** The head's number (eth_blockNumber, and the number that `latest` equals), 0x-hex. */
  head: string;
  /** Drop every `latest` entry (the head moved in a way whose changes are not listed). */
  clearLatest?: boolean;
  /** Drop every `pending` entry (a flashblock was shown, or a new block opened). */
  clearPending?: boolean;
  /** Accounts (0x-lowercase) whose `latest` entries (balance, nonce, code, slots) are dropped. */
  accounts?: string[];
  constants?: ReplicaConstants;
}

/** What a front thread starts with. */
export interface ReplicaStart {
  v: number;
  head: string;
  constants: ReplicaConstants;
}

/** The options of a front thread's HTTP front and its limits (the main thread's, copied). */
export interface FrontWorkerData {
  /** The main thread's listening socket (the worker listens on a duplicate of it). */
  fd: number;
  /** This thread's number (0, 1, ...): its slot of open connections is FrontCounter.Open + index. */
  index: number;
  /** How many front threads share the connections. */
  threads: number;
  /** Int32Array over it, slots as FrontCounter says. */
  version: SharedArrayBuffer;
  /** The port state messages arrive on. */
  statePort: MessagePort;
  start: ReplicaStart;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  checkEveryMs: number;
  maxBody: number;
  /** Requests forwarded and not yet answered at which the worker stops reading its sockets. */
  forwardHighWater: number;
  /** Values a worker caches per view (latest, pending) before it starts over. */
  cacheEntries: number;
  /** Bytes of code a worker caches per view before it starts over. */
  cacheCodeBytes: number;
  /** Bytes waiting to go out on a tunnelled connection at which the worker drops it. */
  maxUnsentBytes: number;
}

/** Worker -> main, on the worker's parentPort. */
export type FromWorker =
  /** `tid`: this thread's id in the kernel (Linux), so that the CLI leaves its priority alone. */
  | { t: 'listening'; tid?: number }
  | { t: 'failed'; message: string }
  /** A request the worker does not answer itself: its body as it came. */
  | { t: 'rpc'; id: number; body: Uint8Array; client?: string }
  /** A connection the lean front does not serve: it goes on to Node's HTTP server, through a tunnel. */
  | {
      t: 'open';
      id: number;
      rest: Uint8Array;
      remoteAddress?: string;
      remotePort?: number;
      remoteFamily?: string;
    }
  | { t: 'data'; id: number; chunk: Uint8Array }
  /** The client finished sending. */
  | { t: 'end'; id: number }
  /** The socket closed. */
  | { t: 'close'; id: number }
  /** `n` written bytes went out (the main thread's write callbacks). */
  | { t: 'sent'; id: number; n: number }
  | { t: 'stopped' };

/** Main -> worker, on the worker's parentPort. */
export type ToWorker =
  /** A forwarded request's answer; `v` is the state version it was read at. */
  | { t: 'rpc'; id: number; status: number; text?: string; v: number }
  | { t: 'write'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'destroy'; id: number }
  /** Stop reading the tunnelled socket (the main thread's side is full or held), or start again. */
  | { t: 'pause'; id: number }
  | { t: 'resume'; id: number }
  | { t: 'stop' };
