/** A transaction's receipt as eth_getTransactionReceipt answers it (sealed or pre-confirmed). */
import { type BlockView, pendingShape, type TxFound } from './chainReads.js';
import type { RpcContext } from './context.js';
import { formatReceipt } from './format.js';

export function blobGasPriceOf(view: BlockView): bigint {
  const h = view.block.header;
  return h.common.isActivatedEIP(4844) ? h.getBlobGasPrice() : 1n;
}

/**
 * Pre-confirmed: blockHash the zero hash (null with --pending-nulls), blockNumber the block
 * being built, transactionIndex its index in the whole block (design, "`pending`").
 */
export async function receiptOf(c: RpcContext, f: TxFound): Promise<Record<string, unknown>> {
  return formatReceipt(f.view.block, await f.view.receipts(), f.index, f.view.senders[f.index], {
    pending: f.view.pending ? pendingShape(c) : undefined,
    blobGasPrice: blobGasPriceOf(f.view),
  });
}
