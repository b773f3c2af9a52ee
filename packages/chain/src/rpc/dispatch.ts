/**
 * JSON-RPC 2.0 request handling, transport-free: envelope checks, batches (at most 1,000),
 * method lookup, arity, and every thrown error through toRpcError.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Connection, Methods, RpcContext } from './context.js';
import { ErrorCode, toRpcError, type WireError } from './errors.js';
import { Params } from './params.js';

export const MAX_BATCH = 1000;
/** How long a batch runs before the event loop gets a turn. */
const BATCH_SLICE_MS = 5;
/**
 * How many of a batch's requests are prepared (Method.prepare) ahead of the one running: enough
 * to keep the recovery worker busy while the pool takes them in order (a transfer's recovery,
 * ~65 µs here, costs less than its turn on the main thread), few enough that a request from
 * elsewhere does not wait behind a deep queue of recoveries, and memory stays flat for
 * 1,000-request batches. Under load 13-18, 8 and 64 ahead measured the same accepted/s
 * (docs/decisions/0340-a-batch-recovers-its-senders-ahead.md).
 */
const PREPARE_AHEAD = 16;

type Id = string | number | null;
export interface Response {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: WireError;
}

const fail = (id: Id, code: number, message: string): Response => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

function validId(v: unknown): v is Id {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

export class Dispatcher {
  constructor(
    private readonly methods: Methods,
    private readonly ctx: RpcContext,
  ) {}

  /** Handles a parsed body (object or batch). undefined = nothing to send (notifications only). */
  async handle(
    body: unknown,
    conn?: Connection,
    client?: string,
  ): Promise<Response | Response[] | undefined> {
    if (Array.isArray(body)) {
      if (body.length === 0) return fail(null, ErrorCode.InvalidRequest, 'empty batch');
      if (body.length > MAX_BATCH)
        return fail(
          null,
          ErrorCode.InvalidRequest,
          `batch too large: ${body.length} requests, at most ${MAX_BATCH}`,
        );
      const out: Response[] = [];
      let until = performance.now() + BATCH_SLICE_MS;
      // The requests still run one after another, in order; only what does not depend on the
      // ones before (a transaction's sender recovery) starts ahead.
      const prepared: unknown[] = new Array(body.length);
      let ahead = 0;
      for (let i = 0; i < body.length; i++) {
        // A batch of a thousand transactions is ~200 ms of work: timers (the builder's) get turns.
        // (Not the request queue's turn, which also waits out the builder's window: under load
        // that cost accepted/s and the flashblocks gained nothing measurable; decision 0340.)
        if (performance.now() >= until) {
          await nextTurn();
          until = performance.now() + BATCH_SLICE_MS;
        }
        for (; ahead < body.length && ahead <= i + PREPARE_AHEAD; ahead++)
          prepared[ahead] = this.prepare(body[ahead]);
        const res = await this.one(body[i], conn, client, prepared[i]);
        prepared[i] = undefined;
        if (res) out.push(res);
      }
      return out.length ? out : undefined;
    }
    return this.one(body, conn, client);
  }

  /** Method.prepare for one request of a batch, if its method has one; never throws. */
  private prepare(req: unknown): unknown {
    if (typeof req !== 'object' || req === null) return undefined;
    const { method, params } = req as Record<string, unknown>;
    if (typeof method !== 'string' || !Array.isArray(params) || !Object.hasOwn(this.methods, method))
      return undefined;
    const m = this.methods[method];
    if (!m.prepare) return undefined;
    try {
      return m.prepare(params, this.ctx);
    } catch {
      return undefined; // run says what is wrong
    }
  }

  private async one(
    req: unknown,
    conn?: Connection,
    client?: string,
    prepared?: unknown,
  ): Promise<Response | undefined> {
    if (typeof req !== 'object' || req === null || Array.isArray(req))
      return fail(null, ErrorCode.InvalidRequest, 'invalid request: expected an object');
    const r = req as Record<string, unknown>;
    const hasId = 'id' in r;
    const id = validId(r.id) ? r.id : null;
    if (hasId && !validId(r.id)) return fail(null, ErrorCode.InvalidRequest, 'invalid request: bad id');
    if (r.jsonrpc !== '2.0')
      return fail(id, ErrorCode.InvalidRequest, 'invalid request: jsonrpc must be "2.0"');
    if (typeof r.method !== 'string')
      return fail(id, ErrorCode.InvalidRequest, 'invalid request: method must be a string');
    if (r.params !== undefined && r.params !== null && !Array.isArray(r.params))
      return fail(id, ErrorCode.InvalidParams, 'invalid params: positional parameters (an array) expected');
    const params = (r.params as unknown[] | undefined) ?? [];
    const res = await this.call(r.method, params, id, conn, client, prepared);
    return hasId ? res : undefined;
  }

  private async call(
    name: string,
    params: unknown[],
    id: Id,
    conn?: Connection,
    client?: string,
    prepared?: unknown,
  ): Promise<Response> {
    const m = Object.hasOwn(this.methods, name) ? this.methods[name] : undefined;
    if (!m)
      return fail(
        id,
        ErrorCode.MethodNotFound,
        `the method ${name.slice(0, 100)} does not exist/is not available`,
      );
    if (params.length > m.params.length)
      return fail(id, ErrorCode.InvalidParams, `too many arguments, want at most ${m.params.length}`);
    for (let i = 0; i < m.required; i++)
      if (params[i] === undefined || params[i] === null)
        return fail(id, ErrorCode.InvalidParams, `missing value for required argument ${i} (${m.params[i]})`);
    try {
      const result = await m.run(new Params(params, m.params), this.ctx, conn, client, prepared);
      return { jsonrpc: '2.0', id, result: result === undefined ? null : result };
    } catch (e) {
      return { jsonrpc: '2.0', id, error: toRpcError(e, this.ctx.log) };
    }
  }
}
