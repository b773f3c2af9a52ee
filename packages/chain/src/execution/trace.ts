/**
 * debug_trace*: replays a sealed block's transactions on its parent state and records geth's
 * struct logs (pc, op, gas, gasCost, depth, stack, memory, storage, as the config asks) for the
 * wanted ones, within a byte budget and the evm timeout. The system-contract
 * writes of EIP-4788/2935 are not replayed (they run no EVM code).
 */
import type { Block } from '@ethereumjs/block';
import { runTx } from '@ethereumjs/vm';
import { bigintToBytes, bytesToBigint, bytesToHex, pad32, quantity } from '../primitives/hex.js';
import { JournaledState } from '../state/journaledState.js';
import { localRoot } from '../state/forkState.js';
import { TrieStateReader } from '../state/trieState.js';
import { keys } from '../storage/keys.js';
import type { ChainContext } from './chainContext.js';
import { rootOf } from './commitBlock.js';
import type { EvmBudget } from './evmBudget.js';
import { createVm } from './vmFactory.js';

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  /** 32-byte words, hex without 0x (geth), with `enableMemory`. */
  memory?: string[];
  /** The slots this contract touched so far, on SLOAD and SSTORE steps (geth), unless `disableStorage`. */
  storage?: Record<string, string>;
}

export interface TxTrace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

/** geth's struct-logger config (debug_trace*'s second parameter). */
export interface TraceConfig {
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  /** Struct logs per transaction at most; 0: no limit (the byte budget still applies). */
  limit?: number;
}

/** What one debug_trace* request may take: its output (a block's traces together) and its time. */
export interface TraceLimits {
  maxBytes: number;
  budget: EvmBudget;
}

/** A trace whose output would pass --rpc-trace-max-bytes. */
export class TraceTooLarge extends Error {
  override readonly name = 'TraceTooLarge';
  constructor(readonly maxBytes: number) {
    super(
      `trace output exceeds ${maxBytes} bytes (--rpc-trace-max-bytes): trace fewer transactions, or pass disableStack, disableStorage or a limit`,
    );
  }
}

const SLOAD = 0x54;
const SSTORE = 0x55;
/** The JSON of a struct log without its lists: {"pc":..,"op":"..","gas":..,"gasCost":..,"depth":..}. */
const LOG_BASE_BYTES = 90;
const word = (v: bigint) => v.toString(16).padStart(64, '0');

/**
 * Traces the transactions of `block` (all, or only index `only`) with geth's struct logger.
 * Output is counted as it is made (about its JSON size) against `limits.maxBytes`, for the
 * block's traces together; execution checks `limits.budget` (the evm timeout, turns).
 */
export async function traceBlock(
  ctx: ChainContext,
  block: Block,
  only: number | undefined,
  config: TraceConfig,
  limits: TraceLimits,
): Promise<TxTrace[]> {
  await limits.budget.check();
  const parent = await ctx.blocks.byHash(block.header.parentHash);
  if (!parent) throw new Error('parent block not found');
  // Below a fork block the state is the remote's (state/forkState.ts); past the window, gone.
  if (!(ctx.fork && parent.header.number < ctx.fork.number))
    ctx.store.requireState(parent.header.number, ctx.blocks.head.header.number);
  const base =
    ctx.fork && parent.header.number < ctx.fork.number
      ? ctx.fork.at(parent.header.number)
      : new TrieStateReader(parent.header.stateRoot, ctx.nodes, (h) => ctx.store.get(keys.code(h)), ctx.fork);
  const root = localRoot(parent.header.stateRoot, ctx.fork);
  // Pre-Byzantium receipts carry the intermediate state root.
  const state = new JournaledState(base, async (diff) => (await rootOf(ctx, root, base, diff)).root);
  const vm = await createVm(ctx.spec.common, state, ctx.blocks, {
    number: block.header.number,
    timestamp: block.header.timestamp,
  });
  limits.budget.attach(vm);
  const out: TxTrace[] = [];
  let gasUsed = 0n;
  let bytes = 0;
  const limit = config.limit && config.limit > 0 ? config.limit : Number.POSITIVE_INFINITY;
  for (let i = 0; i < block.transactions.length; i++) {
    if (only !== undefined && i > only) break;
    await limits.budget.check();
    const tracing = only === undefined || only === i;
    const logs: StructLog[] = [];
    const storage = new Map<string, Record<string, string>>();
    // Over the byte budget: the next step (or the end of the transaction) throws it out of the EVM.
    let overflow: TraceTooLarge | undefined;
    let prevStack: bigint[] = [];
    let prevHex: string[] = [];
    const onStep = (s: any, done?: () => void) => {
      // Always called with it: the EVM awaits listeners that take two parameters.
      const resolve = done!;
      if (overflow) throw overflow;
      if (logs.length >= limit) return resolve();
      const log: StructLog = {
        pc: s.pc,
        op: s.opcode.name,
        gas: Number(s.gasLeft),
        gasCost: Number(BigInt(s.opcode.fee) + (s.opcode.dynamicFee ?? 0n)),
        depth: s.depth + 1,
      };
      let size = LOG_BASE_BYTES + log.op.length;
      const stack = s.stack as bigint[];
      if (!config.disableStack) {
        // Most of the stack is the step before's: its strings are reused.
        const hexes = new Array<string>(stack.length);
        for (let k = 0; k < stack.length; k++) {
          const v = stack[k];
          hexes[k] = k < prevStack.length && prevStack[k] === v ? prevHex[k] : quantity(v);
          size += hexes[k].length + 3;
        }
        prevStack = stack;
        prevHex = hexes;
        log.stack = hexes;
      }
      if (config.enableMemory) {
        const mem = s.memory as Uint8Array;
        const words: string[] = [];
        for (let o = 0; o < mem.length; o += 32)
          words.push(Buffer.from(mem.subarray(o, o + 32)).toString('hex'));
        log.memory = words;
        size += words.length * 67;
      }
      const code = s.opcode.code as number;
      const finish = () => {
        bytes += size;
        if (bytes > limits.maxBytes) overflow = new TraceTooLarge(limits.maxBytes);
        else logs.push(log);
        resolve();
      };
      if (
        config.disableStorage ||
        (code !== SLOAD && code !== SSTORE) ||
        stack.length < (code === SLOAD ? 1 : 2)
      )
        return finish();
      const addr = (s.address as { toString(): string }).toString();
      const slots = storage.get(addr) ?? {};
      storage.set(addr, slots);
      const key = stack[stack.length - 1];
      const record = (value: bigint) => {
        slots[word(key)] = word(value);
        log.storage = { ...slots };
        size += Object.keys(slots).length * 134;
        finish();
      };
      if (code === SSTORE) return record(stack[stack.length - 2]);
      // SLOAD: the value it is about to read, as geth records it.
      (s.stateManager as { getStorage(a: unknown, k: Uint8Array): Promise<Uint8Array> })
        .getStorage(s.address, pad32(bigintToBytes(key)))
        .then((v) => record(v.length ? bytesToBigint(v) : 0n), finish);
    };
    if (tracing) vm.evm.events!.on('step', onStep);
    let r: Awaited<ReturnType<typeof runTx>>;
    try {
      r = await runTx(vm, {
        tx: block.transactions[i],
        block,
        blockGasUsed: gasUsed,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      });
    } finally {
      if (tracing) vm.evm.events!.off('step', onStep);
    }
    // Thrown from a step, the EVM passes it on (it is not an EVM error); else it is thrown here.
    if (overflow) throw overflow;
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
