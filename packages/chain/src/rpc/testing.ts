/** testing_buildBlockV1: the payload a builder would produce on top of a block (nothing stored). */
import type { TypedTransaction } from '@ethereumjs/tx';
import { createTxFromRLP } from '@ethereumjs/tx';
import { BuildError, buildPayload } from '../execution/buildPayload.js';
import { bytesToHex, quantity } from '../primitives/hex.js';
import { blockAt, stateAt } from './chainReads.js';
import { method, type Methods } from './context.js';
import { ErrorCode, RpcError, serverError } from './errors.js';
import { parseData, parseQuantity } from './params.js';

export const testingMethods: Methods = {
  testing_buildBlockV1: method(
    ['parentHash', 'payloadAttributes', 'transactions', 'extraData'],
    2,
    async (p, c) => {
      const parentHash = p.hash(0);
      const a = p.object(1);
      const fail =
        (k: string) =>
        (why: string): never =>
          p.fail(1, `${k}: ${why}`);
      const attrs = {
        timestamp: parseQuantity(a.timestamp, fail('timestamp')),
        prevRandao: parseData(a.prevRandao, fail('prevRandao'), 32),
        feeRecipient: parseData(a.suggestedFeeRecipient, fail('suggestedFeeRecipient'), 20),
        withdrawals: ((a.withdrawals ?? []) as any[]).map((w) => ({
          index: parseQuantity(w.index, fail('withdrawals.index')),
          validatorIndex: parseQuantity(w.validatorIndex, fail('withdrawals.validatorIndex')),
          address: parseData(w.address, fail('withdrawals.address'), 20),
          amount: parseQuantity(w.amount, fail('withdrawals.amount')),
        })),
        parentBeaconBlockRoot:
          a.parentBeaconBlockRoot != null
            ? parseData(a.parentBeaconBlockRoot, fail('parentBeaconBlockRoot'), 32)
            : undefined,
      };
      const view = await blockAt(c, { hash: parentHash });
      if (!view) throw serverError(`unknown parent block ${bytesToHex(parentHash)}`);
      const parent = view.block;
      const common = c.chain.spec.common.copy();
      common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp: attrs.timestamp });
      let txs: TypedTransaction[];
      if (p.has(2)) {
        const raw = p.raw(2);
        if (!Array.isArray(raw)) p.fail(2, 'expected an array of raw transactions');
        txs = (raw as unknown[]).map((r, i) => {
          const bytes = parseData(r, (why) => p.fail(2, `transaction ${i}: ${why}`));
          try {
            return createTxFromRLP(bytes, { common });
          } catch (e) {
            return p.fail(2, `transaction ${i}: ${(e as Error).message.split(' (')[0]}`);
          }
        });
      } else txs = [...c.pool.best(parent.header.calcNextBaseFee())].map((t) => t.tx);
      const extra = p.has(3) ? p.data(3) : new Uint8Array(0);
      const { state } = await stateAt(c, { hash: parentHash });
      try {
        const { block, blockValue, requests } = await buildPayload(c.chain, parent, state, attrs, txs, extra);
        const h = block.header;
        return {
          executionPayload: {
            parentHash: bytesToHex(h.parentHash),
            feeRecipient: bytesToHex(h.coinbase.bytes),
            stateRoot: bytesToHex(h.stateRoot),
            receiptsRoot: bytesToHex(h.receiptTrie),
            logsBloom: bytesToHex(h.logsBloom),
            prevRandao: bytesToHex(h.mixHash),
            blockNumber: quantity(h.number),
            gasLimit: quantity(h.gasLimit),
            gasUsed: quantity(h.gasUsed),
            timestamp: quantity(h.timestamp),
            extraData: bytesToHex(h.extraData),
            baseFeePerGas: quantity(h.baseFeePerGas ?? 0n),
            blockHash: bytesToHex(block.hash()),
            transactions: block.transactions.map((t) => bytesToHex(t.serialize())),
            ...(block.withdrawals
              ? {
                  withdrawals: block.withdrawals.map((w) => ({
                    index: quantity(w.index),
                    validatorIndex: quantity(w.validatorIndex),
                    address: bytesToHex(w.address.bytes),
                    amount: quantity(w.amount),
                  })),
                }
              : {}),
            ...(h.blobGasUsed !== undefined ? { blobGasUsed: quantity(h.blobGasUsed) } : {}),
            ...(h.excessBlobGas !== undefined ? { excessBlobGas: quantity(h.excessBlobGas) } : {}),
          },
          blockValue: quantity(blockValue),
          blobsBundle: { commitments: [], proofs: [], blobs: [] },
          executionRequests: requests.map(bytesToHex),
          shouldOverrideBuilder: false,
        };
      } catch (e) {
        if (e instanceof BuildError) throw new RpcError(ErrorCode.Server, e.message);
        throw e;
      }
    },
  ),
};
