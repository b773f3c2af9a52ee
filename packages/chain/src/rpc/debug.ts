/** debug_getRaw*: consensus encodings of blocks, headers, receipts and transactions. */
import { bytesToHex } from '../primitives/hex.js';
import { blockAt, findTx } from './chainReads.js';
import { method, type Methods } from './context.js';

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
    return (await c.chain.blocks.rawReceipts(v.block.hash())).map(hex);
  }),
  debug_getRawTransaction: method(['transactionHash'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    return f ? hex(f.tx.serialize()) : '0x';
  }),
};
