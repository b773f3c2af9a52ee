/**
 * The named tracers on the debug_trace* methods: `{ tracer: 'callTracer' | 'prestateTracer',
 * tracerConfig }` goes to execution/tracedReplay.ts; without a tracer the struct logger of
 * debug.ts answers as before. Also debug_traceCall (named tracers only).
 */
import { gasCap } from '../execution/call.js';
import { EvmBudget } from '../execution/evmBudget.js';
import {
  namedTracer,
  type NamedTracer,
  traceBlockWith,
  traceCallWith,
  TracerError,
} from '../execution/tracedReplay.js';
import { bytesToHex } from '../primitives/hex.js';
import type { BlockTag } from '../state/resolve.js';
import { callBlockOf, parseCallArgs } from './callArgs.js';
import { blockAt, findTx, stateAt } from './chainReads.js';
import { method, type Method, type Methods, type RpcContext } from './context.js';
import { serverError } from './errors.js';
import { callLimits } from './limits.js';
import type { Params } from './params.js';

/** The evm timeout and turns for one trace request (as the struct logger's). */
const budgetOf = (c: RpcContext) => new EvmBudget(c.limits.evmTimeoutMs, c.scheduler);

function tracerOf(p: Params, i: number): NamedTracer | undefined {
  try {
    return namedTracer(p.raw(i));
  } catch (e) {
    if (e instanceof TracerError) return p.fail(i, e.message);
    throw e;
  }
}

async function sealedBlock(c: RpcContext, tag: BlockTag, label: string) {
  const v = await blockAt(c, tag);
  if (!v || v.pending) throw serverError(`block ${label} not found`);
  if (v.block.header.number === 0n) throw serverError('genesis is not traceable');
  return v;
}

async function traceBlock(c: RpcContext, tag: BlockTag, label: string, t: NamedTracer) {
  const v = await sealedBlock(c, tag, label);
  const results = await traceBlockWith(c.chain, v.block, v.senders, t, budgetOf(c));
  return results.map((result, i) => ({ txHash: bytesToHex(v.block.transactions[i].hash()), result }));
}

/** `struct` answers when the config names no tracer. */
export function namedTraceMethods(struct: Methods): Methods {
  const orStruct = (
    name: string,
    named: (p: Params, c: RpcContext, t: NamedTracer) => Promise<unknown>,
  ): Method => {
    const fallback = struct[name];
    return method(fallback.params, fallback.required, (p, c, conn) => {
      const t = tracerOf(p, 1);
      return t ? named(p, c, t) : fallback.run(p, c, conn);
    });
  };
  return {
    debug_traceTransaction: orStruct('debug_traceTransaction', async (p, c, t) => {
      const f = await findTx(c, p.hash(0));
      if (!f || f.view.pending) throw serverError('transaction not found');
      const [result] = (
        await traceBlockWith(c.chain, f.view.block, f.view.senders, t, budgetOf(c), f.index)
      ).slice(-1);
      return result;
    }),
    debug_traceBlockByNumber: orStruct('debug_traceBlockByNumber', (p, c, t) =>
      traceBlock(c, p.blockNumber(0), String(p.raw(0)), t),
    ),
    debug_traceBlockByHash: orStruct('debug_traceBlockByHash', (p, c, t) => {
      const hash = p.hash(0);
      return traceBlock(c, { hash }, bytesToHex(hash), t);
    }),
    debug_traceCall: method(['transaction', 'block', 'config'], 1, async (p, c) => {
      const args = parseCallArgs(p.raw(0), 0);
      const t =
        tracerOf(p, 2) ??
        p.fail(2, 'debug_traceCall takes a named tracer here: callTracer or prestateTracer');
      const r = await stateAt(c, p.has(1) ? p.blockOrHash(1) : { tag: 'latest' });
      const at = callBlockOf(r);
      const limits = callLimits(c.limits, c.scheduler);
      return traceCallWith(
        c.chain,
        r.state,
        at,
        args,
        args.gas ?? gasCap(c.chain, at, limits),
        t,
        limits.budget,
      );
    }),
  };
}
