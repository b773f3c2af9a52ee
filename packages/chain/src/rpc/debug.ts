/** debug_getRaw* (consensus encodings) and debug_trace* (geth struct logs). */
import type { Block } from '@ethereumjs/block';
import { EvmBudget } from '../execution/evmBudget.js';
import { type TraceConfig, type TraceLimits, traceBlock, type TxTrace } from '../execution/trace.js';
import { bytesToHex } from '../primitives/hex.js';
import type { BlockTag } from '../state/resolve.js';
import { blockAt, findTx } from './chainReads.js';
import { method, type Methods, type RpcContext } from './context.js';
import { invalidParams, serverError } from './errors.js';
import type { Params } from './params.js';

export const debugMethods: Methods = {
  debug_getRawBlock: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockOrHash(0));
    return v ? bytesToHex(v.block.serialize()) : null;
  }),
  debug_getRawHeader: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockOrHash(0));
    return v ? bytesToHex(v.block.header.serialize()) : null;
  }),
  debug_getRawReceipts: method(['block'], 1, async (p, c) => {
    const tag = p.blockOrHash(0);
    const v = await blockAt(c, tag);
    if (!v) return null;
    if (v.pending) return [];
    return (await c.reader.rawReceipts(v.block.hash())).map((b) => bytesToHex(b));
  }),
  debug_getRawTransaction: method(['transactionHash'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    return f ? bytesToHex(f.tx.serialize()) : '0x';
  }),
};

async function traceableBlock(c: RpcContext, tag: BlockTag, label: string) {
  const v = await blockAt(c, tag);
  if (!v || v.pending) throw serverError(`block ${label} not found`);
  if (v.block.header.number === 0n) throw serverError('genesis is not traceable');
  return v.block;
}

const FLAGS = ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData'] as const;

/** The struct logger's config (the trace methods' second parameter), checked as geth decodes it. */
export function traceConfig(p: Params, i: number): TraceConfig {
  if (!p.has(i)) return {};
  const raw = p.raw(i);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidParams(`invalid argument ${i} (config): expected an object`);
  const o = raw as Record<string, unknown>;
  const config: TraceConfig = {};
  for (const k of FLAGS) {
    if (o[k] === undefined || o[k] === null) continue;
    if (typeof o[k] !== 'boolean')
      throw invalidParams(`invalid argument ${i} (config): ${k} must be a boolean`);
    if (k !== 'enableReturnData') config[k] = o[k] as boolean;
  }
  if (o.limit !== undefined && o.limit !== null) {
    if (typeof o.limit !== 'number' || !Number.isSafeInteger(o.limit) || o.limit < 0)
      throw invalidParams(`invalid argument ${i} (config): limit must be a whole number of at least 0`);
    config.limit = o.limit;
  }
  return config;
}

/** A fresh byte budget and deadline for one trace request. */
function traceLimits(c: RpcContext): TraceLimits {
  return { maxBytes: c.limits.traceMaxBytes, budget: new EvmBudget(c.limits.evmTimeoutMs, c.scheduler) };
}

function tracedBlock(block: Block, traces: TxTrace[]) {
  return traces.map((result, i) => ({ txHash: bytesToHex(block.transactions[i].hash()), result }));
}

export const traceMethods: Methods = {
  debug_traceBlockByNumber: method(['block', 'config'], 1, async (p, c) => {
    const tag = p.blockNumber(0);
    const config = traceConfig(p, 1);
    const block = await traceableBlock(c, tag, String(p.raw(0)));
    return tracedBlock(block, await traceBlock(c.chain, block, undefined, config, traceLimits(c)));
  }),
  debug_traceBlockByHash: method(['blockHash', 'config'], 1, async (p, c) => {
    const hash = p.hash(0);
    const config = traceConfig(p, 1);
    const block = await traceableBlock(c, { hash }, bytesToHex(hash));
    return tracedBlock(block, await traceBlock(c.chain, block, undefined, config, traceLimits(c)));
  }),
  debug_traceTransaction: method(['transactionHash', 'config'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    const config = traceConfig(p, 1);
    if (!f || f.view.pending) throw serverError('transaction not found');
    const [trace] = await traceBlock(c.chain, f.view.block, f.index, config, traceLimits(c));
    return trace;
  }),
};
