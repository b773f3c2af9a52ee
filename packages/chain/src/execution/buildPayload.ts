/**
 * testing_buildBlockV1: builds (never stores) the block that would follow `parent` with the given
 * payload attributes and transactions, through @ethereumjs's runBlock so that the system calls
 * of EIP-4788/2935 and the EIP-7685 requests are exactly those of imported blocks.
 */
import { Block, createBlock, createBlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { runBlock } from '@ethereumjs/vm';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { orderedTrieRoot } from '../trie/index.js';
import type { ChainContext } from './chainContext.js';
import { rootOf } from './commitBlock.js';
import { createVm } from './vmFactory.js';

export interface PayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  feeRecipient: Uint8Array;
  withdrawals: { index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }[];
  parentBeaconBlockRoot?: Uint8Array;
}

/** geth's miner gas limit target, approached by at most parent/1024 per block. */
export const DESIRED_GAS_LIMIT = 60_000_000n;

export function nextGasLimit(parent: bigint, desired = DESIRED_GAS_LIMIT): bigint {
  const delta = parent / 1024n - 1n;
  if (parent < desired) return parent + delta > desired ? desired : parent + delta;
  if (parent > desired) return parent - delta < desired ? desired : parent - delta;
  return parent;
}

export class BuildError extends Error {
  override readonly name = 'BuildError';
}

export async function buildPayload(
  ctx: ChainContext,
  parent: Block,
  parentState: StateReader,
  attrs: PayloadAttributes,
  txs: TypedTransaction[],
  extraData: Uint8Array,
): Promise<{ block: Block; blockValue: bigint; requests: Uint8Array[] }> {
  const number = parent.header.number + 1n;
  const common = ctx.spec.common.copy();
  common.setHardforkBy({ blockNumber: number, timestamp: attrs.timestamp });
  const p = parent.header;
  const header = {
    parentHash: parent.hash(),
    number,
    timestamp: attrs.timestamp,
    coinbase: attrs.feeRecipient,
    mixHash: attrs.prevRandao,
    difficulty: 0n,
    gasLimit: nextGasLimit(p.gasLimit),
    extraData,
    baseFeePerGas: common.isActivatedEIP(1559) ? p.calcNextBaseFee() : undefined,
    excessBlobGas: common.isActivatedEIP(4844)
      ? p.common.isActivatedEIP(4844)
        ? p.calcNextExcessBlobGas(common)
        : 0n
      : undefined,
    parentBeaconBlockRoot: attrs.parentBeaconBlockRoot,
  };
  const withdrawals = attrs.withdrawals.map((w) => ({
    index: w.index,
    validatorIndex: w.validatorIndex,
    address: w.address,
    amount: w.amount,
  }));
  const draft = createBlock(
    { header, transactions: txs, withdrawals },
    { common, skipConsensusFormatValidation: true },
  );
  const state = new JournaledState(
    parentState,
    async (diff) => (await rootOf(ctx, p.stateRoot, parentState, diff)).root,
  );
  const vm = await createVm(ctx.spec.common, state, ctx.blocks, { number, timestamp: attrs.timestamp });
  let result: Awaited<ReturnType<typeof runBlock>>;
  try {
    result = await runBlock(vm, {
      block: draft,
      generate: true,
      skipHeaderValidation: true,
      skipBlockValidation: true,
    });
  } catch (e) {
    throw new BuildError((e as Error).message.split(' (block=')[0].split(' (vm hf=')[0]);
  }
  let blobGasUsed = 0n;
  let blockValue = 0n;
  const baseFee = header.baseFeePerGas ?? 0n;
  result.results.forEach((r, i) => {
    blobGasUsed += r.blobGasUsed ?? 0n;
    const t = txs[i] as unknown as {
      gasPrice?: bigint;
      maxFeePerGas?: bigint;
      maxPriorityFeePerGas?: bigint;
    };
    const tip =
      t.maxFeePerGas !== undefined
        ? t.maxPriorityFeePerGas! < t.maxFeePerGas - baseFee
          ? t.maxPriorityFeePerGas!
          : t.maxFeePerGas - baseFee
        : t.gasPrice! - baseFee;
    blockValue += tip * r.totalGasSpent;
  });
  const final = createBlockHeader(
    {
      ...header,
      stateRoot: result.stateRoot,
      receiptTrie: result.receiptsRoot,
      logsBloom: result.logsBloom,
      gasUsed: result.gasUsed,
      transactionsTrie: orderedTrieRoot(txs.map((t) => t.serialize())),
      withdrawalsRoot: draft.header.withdrawalsRoot,
      blobGasUsed: common.isActivatedEIP(4844) ? blobGasUsed : undefined,
      requestsHash: result.requestsHash,
    },
    { common, skipConsensusFormatValidation: true },
  );
  const block = new Block(final, txs, [], draft.withdrawals, { common });
  const requests = (result.requests ?? []).filter((r) => r.data.length > 0).map((r) => r.bytes);
  return { block, blockValue, requests };
}
