/**
 * The named tracers (callTracer, prestateTracer) over a sealed block's transactions, replayed on
 * the parent's state with the senders the block stored (an impersonated sender has no signature
 * to recover), and over a call (debug_traceCall). The struct logger is execution/trace.ts.
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { runTx, type VM } from '@ethereumjs/vm';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { localRoot } from '../state/forkState.js';
import { TrieStateReader } from '../state/trieState.js';
import { keys } from '../storage/keys.js';
import type { CallArgs, CallBlock } from './call.js';
import { runCall } from './call.js';
import { attachCallTracer, type CallTracerConfig } from './callTracer.js';
import type { ChainContext } from './chainContext.js';
import { rootOf } from './commitBlock.js';
import { type PrestateConfig, prestateResult, RecordingReader } from './prestateTracer.js';
import type { EvmBudget } from './evmBudget.js';
import { createVm } from './vmFactory.js';

export type NamedTracer =
  | { tracer: 'callTracer'; config: CallTracerConfig }
  | { tracer: 'prestateTracer'; config: PrestateConfig };

export class TracerError extends Error {
  override readonly name = 'TracerError';
}

/** Reads `{ tracer, tracerConfig }` of a TraceConfig; undefined for the struct logger. */
export function namedTracer(config: unknown): NamedTracer | undefined {
  if (config === undefined || config === null) return undefined;
  if (typeof config !== 'object') throw new TracerError('trace config: expected an object');
  const { tracer, tracerConfig } = config as { tracer?: unknown; tracerConfig?: unknown };
  if (tracer === undefined || tracer === null || tracer === '') return undefined;
  const tc = (tracerConfig ?? {}) as Record<string, unknown>;
  if (typeof tc !== 'object') throw new TracerError('tracerConfig: expected an object');
  const bool = (k: string): boolean | undefined => {
    const v = tc[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw new TracerError(`tracerConfig.${k}: expected a boolean`);
    return v;
  };
  if (tracer === 'callTracer')
    return { tracer, config: { onlyTopCall: bool('onlyTopCall'), withLog: bool('withLog') } };
  if (tracer === 'prestateTracer') return { tracer, config: { diffMode: bool('diffMode') } };
  throw new TracerError(
    `tracer ${String(tracer).slice(0, 40)} is not supported: callTracer, prestateTracer or none (struct logs)`,
  );
}

/**
 * Runs one transaction under a named tracer; returns the tracer's result and the state after it.
 * `run` executes on a fresh overlay over the reader it is given, and calls `instrument` with its
 * VM and that overlay before it starts.
 */
async function traced(
  t: NamedTracer,
  below: StateReader,
  run: (
    below: StateReader,
    instrument: (vm: VM, overlay: JournaledState) => void,
  ) => Promise<{ gasLimit: bigint; gasUsed: bigint }>,
): Promise<{ result: unknown; after: JournaledState }> {
  const rec = t.tracer === 'prestateTracer' ? new RecordingReader(below) : undefined;
  let tracer: ReturnType<typeof attachCallTracer> | undefined;
  let after: JournaledState | undefined;
  const created = new Set<string>();
  const instrument = (vm: VM, overlay: JournaledState) => {
    after = overlay;
    if (t.tracer === 'callTracer') tracer = attachCallTracer(vm, t.config);
    else
      vm.evm.events!.on('afterMessage', (r: any, resolve?: () => void) => {
        if (r.createdAddress && !r.execResult.exceptionError) created.add(r.createdAddress.toString());
        resolve?.();
      });
  };
  const { gasLimit, gasUsed } = await run(rec ?? below, instrument);
  if (!after) throw new TracerError('the transaction did not run');
  if (tracer) return { result: tracer.finish(gasLimit, gasUsed) ?? null, after };
  return { result: await prestateResult(rec!, after, t.config as PrestateConfig, created), after };
}

/** The named tracer's result for each transaction of `block` (all, or only index `only`). */
export async function traceBlockWith(
  ctx: ChainContext,
  block: Block,
  senders: Uint8Array[],
  t: NamedTracer,
  /** The evm timeout and the turns the replay gives the node (rpc --rpc.evmtimeout). */
  budget: EvmBudget,
  only?: number,
): Promise<unknown[]> {
  await budget.check();
  const parent = await ctx.blocks.byHash(block.header.parentHash);
  if (!parent) throw new TracerError('parent block not found');
  // Below a fork block the state is the remote's (state/forkState.ts); past the window, gone.
  if (!(ctx.fork && parent.header.number < ctx.fork.number))
    ctx.store.requireState(parent.header.number, ctx.blocks.head.header.number);
  const base =
    ctx.fork && parent.header.number < ctx.fork.number
      ? ctx.fork.at(parent.header.number)
      : new TrieStateReader(parent.header.stateRoot, ctx.nodes, (h) => ctx.store.get(keys.code(h)), ctx.fork);
  const root = localRoot(parent.header.stateRoot, ctx.fork);
  // Pre-Byzantium receipts carry the intermediate state root.
  const rootOfState = async (diff: Parameters<typeof rootOf>[3]) =>
    (await rootOf(ctx, root, base, diff)).root;
  let state = new JournaledState(base, rootOfState);
  const out: unknown[] = [];
  let gasUsedBefore = 0n;
  const at = { number: block.header.number, timestamp: block.header.timestamp };
  for (let i = 0; i < block.transactions.length; i++) {
    if (only !== undefined && i > only) break;
    const tx = withSender(block.transactions[i], senders[i]);
    const runOn = async (below: StateReader, instrument?: (vm: VM, overlay: JournaledState) => void) => {
      const s =
        below instanceof JournaledState && !instrument ? below : new JournaledState(below, rootOfState);
      const vm = await createVm(ctx.spec.common, s, ctx.blocks, at);
      budget.attach(vm);
      instrument?.(vm, s);
      await budget.check();
      const r = await runTx(vm, {
        tx,
        block,
        blockGasUsed: gasUsedBefore,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      });
      gasUsedBefore += r.totalGasSpent;
      return { gasLimit: tx.gasLimit, gasUsed: r.totalGasSpent };
    };
    if (only !== undefined && i < only) {
      await runOn(state);
      continue;
    }
    const { result, after } = await traced(t, state, runOn);
    out.push(result);
    state = after;
  }
  return out;
}

/** debug_traceCall: the call on `state` under a named tracer. */
export async function traceCallWith(
  ctx: ChainContext,
  state: StateReader,
  at: CallBlock,
  args: CallArgs,
  gas: bigint,
  t: NamedTracer,
  budget: EvmBudget,
): Promise<unknown> {
  const { result } = await traced(t, state, async (below, instrument) => {
    const out = await runCall(ctx, below, at, args, gas, { instrument, budget });
    return { gasLimit: gas, gasUsed: out.gasUsed };
  });
  return result;
}

/** A view of the (frozen) transaction that answers its sender from the block's stored senders. */
function withSender(tx: TypedTransaction, sender: Uint8Array | undefined): TypedTransaction {
  if (!sender) return tx;
  const a = new Address(sender);
  return new Proxy(tx, {
    get(target, key, receiver) {
      if (key === 'getSenderAddress') return () => a;
      return Reflect.get(target, key, receiver);
    },
  });
}
