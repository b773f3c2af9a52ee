/**
 * eth_call, eth_estimateGas and eth_createAccessList: an unsigned transaction from the caller's
 * fields, run on a throwaway overlay of the requested state. As geth: with no fee fields the
 * call runs at gas price 0 with BASEFEE 0; estimation follows geth's search (a plain transfer
 * tries 21000 first, then the cap, an optimistic limit, and a binary search to 1.5%).
 *
 * One file (over 400 lines): the three share the call's setup (fields to transaction, overlay,
 * block, gas and time caps), and the estimate and the access list are runs of that same call.
 */
import type { Common } from '@ethereumjs/common';
import { type Block, createBlock } from '@ethereumjs/block';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, generateAddress } from '@ethereumjs/util';
import { bigintToBytes } from '../primitives/hex.js';
import { runTx, type VM } from '@ethereumjs/vm';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import type { ChainContext } from './chainContext.js';
import { isPrecompile } from './precompiles.js';
import { movePrecompiles } from './stateOverrides.js';
import { DEFAULT_RPC_GAS_CAP, EvmBudget, EvmTimeout } from './evmBudget.js';
import { createVm } from './vmFactory.js';

/** geth's --rpc.gascap, the default. */
export const RPC_GAS_CAP = DEFAULT_RPC_GAS_CAP;
/** EIP-7825 (Osaka): no transaction may use more gas than this. */
export const MAX_TX_GAS = 16_777_216n;

/** The chain's rules at the block a call runs on (a copy: the chain's own Common stays). */
export function commonAt(ctx: ChainContext, at: Pick<CallBlock, 'number' | 'timestamp'>): Common {
  const c = ctx.spec.common.copy();
  c.setHardforkBy({ blockNumber: at.number, timestamp: at.timestamp });
  return c;
}

/**
 * What one request's execution may use: `gasCap` (--rpc-gas-cap; 0: none) and `budget` (its
 * deadline, --rpc-evm-timeout, and its turns). Every run of one request shares them: an
 * estimation's tries together take at most the timeout.
 */
export interface CallLimits {
  gasCap: bigint;
  budget: EvmBudget;
}

/** Defaults for callers without the RPC server (tests). */
export function defaultCallLimits(): CallLimits {
  return { gasCap: RPC_GAS_CAP, budget: new EvmBudget(0) };
}

/**
 * The most gas a call gets (and what it gets when it names none): the RPC cap, and EIP-7825's
 * limit where active. A larger `gas` is lowered to it, as geth does.
 */
export function gasCap(ctx: ChainContext, at: CallBlock, limits: CallLimits): bigint {
  const cap = limits.gasCap > 0n ? limits.gasCap : at.gasLimit > RPC_GAS_CAP ? at.gasLimit : RPC_GAS_CAP;
  return commonAt(ctx, at).isActivatedEIP(7825) && cap > MAX_TX_GAS ? MAX_TX_GAS : cap;
}

function capped(gas: bigint | undefined, cap: bigint): bigint {
  return gas === undefined || gas > cap ? cap : gas;
}

export interface CallArgs {
  from?: Uint8Array;
  to?: Uint8Array | null;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[];
  blobVersionedHashes?: Uint8Array[];
  maxFeePerBlobGas?: bigint;
  authorizationList?: {
    chainId: bigint;
    address: Uint8Array;
    nonce: bigint;
    yParity: bigint;
    r: bigint;
    s: bigint;
  }[];
}

/** The header a call runs in (the requested block, or the pending block's). */
export interface CallBlock {
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFeePerGas?: bigint;
  coinbase: Uint8Array;
  mixHash: Uint8Array;
  difficulty: bigint;
  excessBlobGas?: bigint;
}

/** Reverted, halted or refused: what the RPC turns into code 3 or -32000. */
export class CallError extends Error {
  override readonly name = 'CallError';
  constructor(
    message: string,
    readonly kind: 'revert' | 'halt' | 'invalid',
    readonly data?: Uint8Array,
  ) {
    super(message);
  }
}

export interface CallOutcome {
  returnValue: Uint8Array;
  gasUsed: bigint;
  refund: bigint;
  /** 'revert', 'out of gas', ... when execution failed. */
  error?: string;
  accessList?: { address: string; storageKeys: string[] }[];
}

const ZERO_ADDRESS = new Uint8Array(20);

function hasFees(a: CallArgs): boolean {
  return !!(a.gasPrice || a.maxFeePerGas || a.maxPriorityFeePerGas);
}

function buildTx(
  ctx: ChainContext,
  block: Block,
  args: CallArgs,
  gas: bigint,
  nonce: bigint,
): TypedTransaction {
  const common = block.common;
  const base: Record<string, unknown> = {
    nonce,
    gasLimit: gas,
    to: args.to ?? undefined,
    value: args.value ?? 0n,
    data: args.data ?? new Uint8Array(0),
  };
  let type = 0;
  if (args.authorizationList) type = 4;
  else if (args.blobVersionedHashes) type = 3;
  else if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) type = 2;
  else if (args.accessList && args.gasPrice === undefined) type = common.isActivatedEIP(1559) ? 2 : 1;
  else if (args.accessList) type = 1;
  if (type === 0 || type === 1) base.gasPrice = args.gasPrice ?? 0n;
  else {
    const maxFee = args.maxFeePerGas ?? args.gasPrice ?? 0n;
    base.maxFeePerGas = maxFee;
    base.maxPriorityFeePerGas = args.maxPriorityFeePerGas ?? (maxFee === 0n ? 0n : maxFee);
    if ((base.maxPriorityFeePerGas as bigint) > maxFee) base.maxPriorityFeePerGas = maxFee;
  }
  if (type !== 0) {
    base.chainId = ctx.spec.chainId;
    base.accessList = (args.accessList ?? []).map((e) => [e.address, e.storageKeys]);
  }
  if (type === 3) {
    base.blobVersionedHashes = args.blobVersionedHashes;
    base.maxFeePerBlobGas = args.maxFeePerBlobGas ?? 0n;
  }
  if (type === 4)
    base.authorizationList = args.authorizationList!.map((a) => ({
      chainId: `0x${a.chainId.toString(16)}`,
      address: `0x${Buffer.from(a.address).toString('hex')}`,
      nonce: `0x${a.nonce.toString(16)}`,
      yParity: `0x${a.yParity.toString(16)}`,
      r: `0x${a.r.toString(16)}`,
      s: `0x${a.s.toString(16)}`,
    }));
  base.type = type;
  const tx = createTx(base as never, { common, freeze: false });
  const from = new Address(args.from ?? ZERO_ADDRESS);
  // Unsigned: the caller is whoever the request says.
  (tx as { getSenderAddress: () => Address }).getSenderAddress = () => from;
  return tx;
}

function callBlock(ctx: ChainContext, at: CallBlock, args: CallArgs): Block {
  const common = commonAt(ctx, at);
  return createBlock(
    {
      header: {
        number: at.number,
        timestamp: at.timestamp,
        gasLimit: at.gasLimit > RPC_GAS_CAP ? at.gasLimit : RPC_GAS_CAP,
        // geth: a call without fee fields sees BASEFEE 0 (and pays nothing).
        baseFeePerGas: at.baseFeePerGas === undefined ? undefined : hasFees(args) ? at.baseFeePerGas : 0n,
        coinbase: at.coinbase,
        mixHash: at.mixHash,
        difficulty: at.difficulty,
        excessBlobGas: at.excessBlobGas,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

/** Runs the call once with `gas`. Throws CallError('invalid') when the tx cannot start. */
export async function runCall(
  ctx: ChainContext,
  state: StateReader,
  at: CallBlock,
  args: CallArgs,
  gas: bigint,
  opts: {
    accessList?: boolean;
    moved?: Map<string, Uint8Array>;
    budget: EvmBudget;
    /** Called with the VM and the call's overlay before it runs (tracers). */
    instrument?: (vm: VM, overlay: JournaledState) => void;
  },
): Promise<CallOutcome> {
  await opts.budget.check();
  const block = callBlock(ctx, at, args);
  // A pre-Byzantium receipt's state root is never looked at here.
  const overlay = new JournaledState(state, async () => new Uint8Array(32));
  const vm = await createVm(ctx.spec.common, overlay, ctx.blocks, at);
  if (opts.moved) movePrecompiles(vm, opts.moved);
  opts.budget.attach(vm);
  opts.instrument?.(vm, overlay);
  // Making a VM is 1-10 ms of the thread: a turn for others before it runs.
  await opts.budget.check();
  const nonce = args.nonce ?? (await overlay.readAccount(args.from ?? ZERO_ADDRESS))?.nonce ?? 0n;
  let tx: TypedTransaction;
  try {
    tx = buildTx(ctx, block, args, gas, nonce);
  } catch (e) {
    throw new CallError((e as Error).message.split(' (')[0], 'invalid');
  }
  const unmask = await overlay.maskSenderCode(args.from ?? ZERO_ADDRESS);
  try {
    const r = await runTx(vm, {
      tx,
      block,
      skipNonce: true,
      skipBalance: !hasFees(args),
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
      reportAccessList: opts.accessList,
    });
    const err = r.execResult.exceptionError?.error;
    return {
      returnValue: r.execResult.returnValue,
      gasUsed: r.totalGasSpent,
      refund: r.gasRefund,
      error: err,
      accessList: r.accessList as CallOutcome['accessList'],
    };
  } catch (e) {
    if (e instanceof EvmTimeout) throw e;
    throw new CallError(cleanVmMessage((e as Error).message), 'invalid');
  } finally {
    unmask();
  }
}

/** @ethereumjs appends block and tx context in parentheses; keep the reason. */
export function cleanVmMessage(m: string): string {
  const cut = m.indexOf(' (block=');
  const first = cut > 0 ? m.slice(0, cut) : m;
  if (/enough funds/.test(first)) return 'insufficient funds for gas * price + value';
  if (/gasLimit is too low|base fee exceeds gas limit/.test(first)) return 'intrinsic gas too low';
  return first.split('\n')[0];
}

/** eth_call's result, or a CallError for a revert (code 3 with data) or a halt. */
export async function call(
  ctx: ChainContext,
  state: StateReader,
  at: CallBlock,
  args: CallArgs,
  limits: CallLimits,
  moved?: Map<string, Uint8Array>,
): Promise<Uint8Array> {
  const gas = capped(args.gas, gasCap(ctx, at, limits));
  const out = await runCall(ctx, state, at, args, gas, { moved, budget: limits.budget });
  if (out.error === 'revert') throw revertError(out.returnValue);
  if (out.error) throw new CallError(out.error, 'halt');
  return out.returnValue;
}

export function revertError(data: Uint8Array): CallError {
  const reason = decodeRevertReason(data);
  return new CallError(reason ? `execution reverted: ${reason}` : 'execution reverted', 'revert', data);
}

const PANICS: Record<number, string> = {
  0: 'generic panic',
  1: 'assert(false)',
  17: 'arithmetic underflow or overflow',
  18: 'division or modulo by zero',
  33: 'enum overflow',
  34: 'invalid encoded storage byte array accessed',
  49: 'out-of-bounds array access; popping on an empty array',
  50: 'out-of-bounds access of an array or bytesN',
  65: 'out of memory',
  81: 'uninitialized function',
};

/** Solidity's Error(string) and Panic(uint256), as geth's abi.UnpackRevert. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const sel = Buffer.from(data.subarray(0, 4)).toString('hex');
  const body = Buffer.from(data.subarray(4));
  try {
    if (sel === '08c379a0' && body.length >= 64) {
      const off = Number(body.readBigUInt64BE(24));
      const len = Number(body.readBigUInt64BE(off + 24));
      return body.subarray(off + 32, off + 32 + len).toString('utf8');
    }
    if (sel === '4e487b71' && body.length >= 32) {
      const code = Number(body.readBigUInt64BE(24));
      return PANICS[code] ?? `unknown panic code: 0x${code.toString(16)}`;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export async function estimateGas(
  ctx: ChainContext,
  state: StateReader,
  at: CallBlock,
  args: CallArgs,
  limits: CallLimits,
  moved?: Map<string, Uint8Array>,
): Promise<bigint> {
  let hi = args.gas !== undefined && args.gas >= 21000n ? args.gas : at.gasLimit;
  const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n;
  if (feeCap > 0n) {
    let available = (await state.readAccount(args.from ?? ZERO_ADDRESS))?.balance ?? 0n;
    const value = args.value ?? 0n;
    if (value > 0n && value >= available) throw new CallError('insufficient funds for transfer', 'invalid');
    available -= value;
    const allowance = available / feeCap;
    if (hi > allowance) hi = allowance;
  }
  const cap = gasCap(ctx, at, limits);
  if (hi > cap) hi = cap;
  const failed = async (gas: bigint): Promise<[boolean, CallOutcome | undefined]> => {
    try {
      const o = await runCall(ctx, state, at, args, gas, { moved, budget: limits.budget });
      return [o.error !== undefined, o];
    } catch (e) {
      if (e instanceof CallError && /intrinsic gas too low/.test(e.message)) return [true, undefined];
      throw e;
    }
  };
  if ((!args.data || args.data.length === 0) && args.to) {
    const acct = await state.readAccount(args.to);
    const code = acct ? await state.readCode(acct.codeHash) : new Uint8Array(0);
    if (code.length === 0) {
      const [f] = await failed(21000n).catch(() => [true] as [boolean]);
      if (!f) return 21000n;
    }
  }
  const [f0, first] = await failed(hi);
  if (f0) {
    if (first && first.error === 'revert') throw revertError(first.returnValue);
    if (first?.error && first.error !== 'out of gas') throw new CallError(first.error, 'halt');
    throw new CallError(`gas required exceeds allowance (${hi})`, 'invalid');
  }
  let lo = first!.gasUsed - 1n;
  const optimistic = ((first!.gasUsed + first!.refund + 2300n) * 64n) / 63n;
  if (optimistic < hi) {
    const [f] = await failed(optimistic);
    if (f) lo = optimistic;
    else hi = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < 0.015) break;
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    const [f] = await failed(mid);
    if (f) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** geth's eth_createAccessList: rerun with the found list until it stops changing. */
export async function createAccessList(
  ctx: ChainContext,
  state: StateReader,
  at: CallBlock,
  args: CallArgs,
  limits: CallLimits,
): Promise<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: bigint; error?: string }> {
  const exclude = new Set<string>();
  const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
  exclude.add(hex(args.from ?? ZERO_ADDRESS));
  if (args.to) exclude.add(hex(args.to));
  for (const a of args.authorizationList ?? []) exclude.add(hex(a.address));
  let list = (args.accessList ?? []).map((e) => ({
    address: hex(e.address),
    storageKeys: e.storageKeys.map(hex),
  }));
  const gas = capped(args.gas, gasCap(ctx, at, limits));
  // geth leaves out the fork's active precompiles.
  const common = commonAt(ctx, at);
  for (let round = 0; round < 10; round++) {
    const withList: CallArgs = {
      ...args,
      accessList: list.map((e) => ({
        address: Buffer.from(e.address.slice(2), 'hex'),
        storageKeys: e.storageKeys.map((k) => Buffer.from(k.slice(2), 'hex')),
      })),
    };
    const out = await runCall(ctx, state, at, withList, gas, { accessList: true, budget: limits.budget });
    if (!args.to && args.from) {
      // A creation: the new contract's address is not listed either.
      const nonce = args.nonce ?? (await state.readAccount(args.from))?.nonce ?? 0n;
      exclude.add(hex(generateAddress(args.from, bigintToBytes(nonce))));
    }
    const found = (out.accessList ?? [])
      .filter((e) => !exclude.has(e.address) && !isPrecompile(e.address, common))
      .map((e) => ({ address: e.address, storageKeys: e.storageKeys }));
    if (JSON.stringify(found) === JSON.stringify(list)) {
      const error = out.error === 'revert' ? 'execution reverted' : out.error;
      return { accessList: found, gasUsed: out.gasUsed, ...(error ? { error } : {}) };
    }
    list = found;
  }
  throw new CallError('access list did not converge', 'invalid');
}
