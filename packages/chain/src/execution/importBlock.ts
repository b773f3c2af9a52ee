/**
 * Validates and applies one block of an imported chain: header against its parent, then
 * @ethereumjs/vm's runBlock on our flat state, which checks the state root, receipts root,
 * bloom, gas used and requests hash. A mismatch throws naming the block and the field.
 */
import type { Block } from '@ethereumjs/block';
import { encodeReceipt, runBlock } from '@ethereumjs/vm';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import { JournaledState } from '../state/journaledState.js';
import { type BaseFeeParams, nextBaseFee } from './baseFee.js';
import type { ChainContext } from './chainContext.js';
import { commitBlock, rootOf } from './commitBlock.js';
import { createVm } from './vmFactory.js';

export class ImportError extends Error {
  override readonly name = 'ImportError';
}

/** The header checks of an import (a follower runs them before its own re-execution too). */
export function checkHeader(block: Block, parent: Block, baseFee: BaseFeeParams): void {
  const h = block.header;
  const p = parent.header;
  const fail = (what: string) => {
    throw new ImportError(`block ${h.number} (${bytesToHex(block.hash())}): ${what}`);
  };
  if (!equalBytes(h.parentHash, parent.hash())) fail('parent hash is not the current head');
  if (h.number !== p.number + 1n) fail(`number ${h.number} does not follow ${p.number}`);
  if (h.timestamp <= p.timestamp) fail('timestamp not after the parent');
  if (h.gasUsed > h.gasLimit) fail('gas used above the gas limit');
  if (h.common.isActivatedEIP(1559) && p.common.isActivatedEIP(1559)) {
    const want = nextBaseFee(p, baseFee);
    if (h.baseFeePerGas !== want) fail(`base fee ${h.baseFeePerGas}, want ${want}`);
  }
  if (h.common.isActivatedEIP(4844)) {
    const want = p.common.isActivatedEIP(4844) ? p.calcNextExcessBlobGas(h.common) : 0n;
    if (h.excessBlobGas !== want) fail(`excess blob gas ${h.excessBlobGas}, want ${want}`);
  }
}

export async function importBlock(ctx: ChainContext, block: Block): Promise<void> {
  const parent = ctx.blocks.head;
  checkHeader(block, parent, ctx.spec.baseFee);
  const baseRoot = parent.header.stateRoot;
  const state = new JournaledState(
    ctx.flat,
    async (diff) => (await rootOf(ctx, baseRoot, ctx.flat, diff)).root,
  );
  const vm = await createVm(ctx.spec.common, state, ctx.blocks, {
    number: block.header.number,
    timestamp: block.header.timestamp,
  });
  let result: Awaited<ReturnType<typeof runBlock>>;
  try {
    result = await runBlock(vm, { block, skipHeaderValidation: true, setHardfork: true });
  } catch (e) {
    throw new ImportError(`block ${block.header.number}: ${(e as Error).message.split('\n')[0]}`);
  }
  const root = await rootOf(ctx, baseRoot, ctx.flat, state.diff());
  const receipts = result.receipts.map((r, i) => encodeReceipt(r, block.transactions[i].type));
  const senders = block.transactions.map((t) => t.getSenderAddress().bytes);
  await (await commitBlock(ctx, { block, receipts, senders }, state, root)).durable;
}
