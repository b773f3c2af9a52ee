/**
 * debug_trace*: replays a sealed block's transactions on its parent state and records geth's
 * struct logs (pc, op, gas, gasCost, depth, stack) for the wanted ones. The system-contract
 * writes of EIP-4788/2935 are not replayed (they run no EVM code).
 */
import type { Block } from '@ethereumjs/block';
import { runTx } from '@ethereumjs/vm';
import { bytesToHex, quantity } from '../primitives/hex.js';
import { JournaledState } from '../state/journaledState.js';
import { TrieStateReader } from '../state/trieState.js';
import { keys } from '../storage/keys.js';
import type { ChainContext } from './chainContext.js';
import { rootOf } from './commitBlock.js';
import { createVm } from './vmFactory.js';

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack: string[];
}

export interface TxTrace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

const MAX_LOGS = 100_000;

/** Traces the transactions of `block` (all, or only index `only`). */
export async function traceBlock(ctx: ChainContext, block: Block, only?: number): Promise<TxTrace[]> {
  const parent = await ctx.blocks.byHash(block.header.parentHash);
  if (!parent) throw new Error('parent block not found');
  const base = new TrieStateReader(parent.header.stateRoot, ctx.nodes, (h) => ctx.store.get(keys.code(h)));
  const root = parent.header.stateRoot;
  // Pre-Byzantium receipts carry the intermediate state root.
  const state = new JournaledState(base, async (diff) => (await rootOf(ctx, root, base, diff)).root);
  const vm = await createVm(ctx.spec.common, state, ctx.blocks, {
    number: block.header.number,
    timestamp: block.header.timestamp,
  });
  const out: TxTrace[] = [];
  let gasUsed = 0n;
  for (let i = 0; i < block.transactions.length; i++) {
    if (only !== undefined && i > only) break;
    const tracing = only === undefined || only === i;
    const logs: StructLog[] = [];
    const onStep = (s: any, resolve?: () => void) => {
      if (logs.length < MAX_LOGS)
        logs.push({
          pc: s.pc,
          op: s.opcode.name,
          gas: Number(s.gasLeft),
          gasCost: Number(BigInt(s.opcode.fee) + (s.opcode.dynamicFee ?? 0n)),
          depth: s.depth + 1,
          stack: (s.stack as bigint[]).map((v) => quantity(v)),
        });
      resolve?.();
    };
    if (tracing) vm.evm.events!.on('step', onStep);
    const r = await runTx(vm, {
      tx: block.transactions[i],
      block,
      blockGasUsed: gasUsed,
      skipHardForkValidation: true,
      skipBlockGasLimitValidation: true,
    });
    if (tracing) vm.evm.events!.off('step', onStep);
    gasUsed += r.totalGasSpent;
    if (tracing)
      out.push({
        gas: Number(r.totalGasSpent),
        failed: r.execResult.exceptionError !== undefined,
        returnValue: bytesToHex(r.execResult.returnValue),
        structLogs: logs,
      });
  }
  return out;
}
