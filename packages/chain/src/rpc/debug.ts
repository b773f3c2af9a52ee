/** debug_getRaw* (consensus encodings) and debug_trace* (geth struct logs). */
import type { Block } from '@ethereumjs/block';
import { traceBlock, type TxTrace } from '../execution/trace.js';
import { bytesToHex } from '../primitives/hex.js';
import type { BlockTag } from '../state/resolve.js';
import { blockAt, findTx } from './chainReads.js';
import { method, type Methods, type RpcContext } from './context.js';
import { serverError } from './errors.js';

const hex = bytesToHex;

export const debugMethods: Methods = {
  debug_getRawBlock: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockOrHash(0));
    return v ? hex(v.block.serialize()) : null;
  }),
  debug_getRawHeader: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockOrHash(0));
    return v ? hex(v.block.header.serialize()) : null;
  }),
  debug_getRawReceipts: method(['block'], 1, async (p, c) => {
    const tag = p.blockOrHash(0);
    const v = await blockAt(c, tag);
    if (!v) return null;
    if (v.pending) return [];
    return (await c.reader.rawReceipts(v.block.hash())).map(hex);
  }),
  debug_getRawTransaction: method(['transactionHash'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    return f ? hex(f.tx.serialize()) : '0x';
  }),
};

async function traceableBlock(c: RpcContext, tag: BlockTag, label: string) {
  const v = await blockAt(c, tag);
  if (!v || v.pending) throw serverError(`block ${label} not found`);
  if (v.block.header.number === 0n) throw serverError('genesis is not traceable');
  return v.block;
}

function tracedBlock(block: Block, traces: TxTrace[]) {
  return traces.map((result, i) => ({ txHash: hex(block.transactions[i].hash()), result }));
}

export const traceMethods: Methods = {
  debug_traceBlockByNumber: method(['block', 'config'], 1, async (p, c) => {
    const tag = p.blockNumber(0);
    const block = await traceableBlock(c, tag, String(p.raw(0)));
    return tracedBlock(block, await traceBlock(c.chain, block));
  }),
  debug_traceBlockByHash: method(['blockHash', 'config'], 1, async (p, c) => {
    const hash = p.hash(0);
    const block = await traceableBlock(c, { hash }, hex(hash));
    return tracedBlock(block, await traceBlock(c.chain, block));
  }),
  debug_traceTransaction: method(['transactionHash', 'config'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    if (!f || f.view.pending) throw serverError('transaction not found');
    const [trace] = await traceBlock(c.chain, f.view.block, f.index);
    return trace;
  }),
};
