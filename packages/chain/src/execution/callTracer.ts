/**
 * geth's callTracer: the tree of calls a transaction made, from the EVM's message events.
 *
 *   { type, from, to, value, gas, gasUsed, input, output?, error?, revertReason?, calls?, logs? }
 *
 * As geth (eth/tracers/native/call.go): the top frame's `gas` is the transaction's gas limit and
 * its `gasUsed` the receipt's; an inner frame's `gas` is what the call was given. `output` is
 * left out when empty, `error` is set for a failed frame (and its `output` only for a revert,
 * with `revertReason` when the data decodes), a failed CREATE has no `to`, STATICCALL has no
 * `value`. `withLog`: each frame's logs with `position` = the number of calls the frame had made
 * before it; logs of failed frames (and of the calls under them) are dropped. `onlyTopCall`:
 * only the top frame.
 */
import type { EVMResult, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { bytesToHex, quantity } from '../primitives/hex.js';
import { decodeRevertReason } from './call.js';

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

export interface CallLog {
  address: string;
  topics: string[];
  data: string;
  position: string;
}

export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: CallLog[];
}

interface OpenFrame {
  frame: CallFrame;
  calls: OpenFrame[];
  logs: CallLog[];
  failed: boolean;
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

/** ethereumjs's error strings where geth words them differently. */
function gethError(e: string): string {
  if (e === 'revert') return 'execution reverted';
  if (e === 'invalid opcode') return 'invalid opcode';
  if (e === 'stack underflow') return 'stack underflow';
  return e;
}

/**
 * Attaches to `vm` for one transaction; `finish` detaches and returns the top frame.
 * `txGas`: the transaction's gas limit; the top frame's gasUsed is given to `finish`.
 */
export function attachCallTracer(vm: VM, config: CallTracerConfig = {}) {
  const events = vm.evm.events!;
  const stack: OpenFrame[] = [];
  let top: OpenFrame | undefined;
  /** The opcode that is about to open a frame, per depth (ethereumjs's Message has no type). */
  const pendingOp = new Map<number, string>();

  const onStep = (s: any, resolve?: () => void) => {
    const op: string = s.opcode.name;
    if (CALL_OPS.has(op)) pendingOp.set(s.depth, op);
    else if (config.withLog && op.startsWith('LOG') && stack.length) {
      const st = s.stack as bigint[];
      const n = Number(op.slice(3));
      const offset = Number(st[st.length - 1]);
      const size = Number(st[st.length - 2]);
      const topics = Array.from(
        { length: n },
        (_, i) => `0x${st[st.length - 3 - i].toString(16).padStart(64, '0')}`,
      );
      const mem = s.memory as Uint8Array;
      const data = new Uint8Array(size);
      if (offset < mem.length) data.set(mem.subarray(offset, Math.min(mem.length, offset + size)));
      const f = stack[stack.length - 1];
      f.logs.push({
        address: s.address.toString(),
        topics,
        data: bytesToHex(data),
        position: quantity(f.calls.length),
      });
    }
    resolve?.();
  };

  const onBefore = (m: Message, resolve?: () => void) => {
    const depth = m.depth;
    let type: string;
    if (depth === 0) type = m.to ? 'CALL' : 'CREATE';
    else type = pendingOp.get(depth - 1) ?? (m.to ? 'CALL' : 'CREATE');
    pendingOp.delete(depth - 1);
    const from = m.delegatecall && m.to ? m.to : m.caller;
    // `codeAddress` is a getter that throws when unset (creates): read its field.
    const codeAddress = (m as { _codeAddress?: { toString(): string } })._codeAddress ?? m.to;
    const frame: CallFrame = {
      type,
      from: from.toString(),
      to: codeAddress?.toString(),
      value: type === 'STATICCALL' ? undefined : quantity(m.value),
      gas: quantity(m.gasLimit),
      gasUsed: '0x0',
      input: bytesToHex(m.data),
    };
    const open: OpenFrame = { frame, calls: [], logs: [], failed: false };
    if (!top) top = open;
    else if (!config.onlyTopCall || stack.length === 0) stack[stack.length - 1]?.calls.push(open);
    stack.push(open);
    resolve?.();
  };

  const onAfter = (r: EVMResult, resolve?: () => void) => {
    const open = stack.pop();
    if (open) {
      const f = open.frame;
      const x = r.execResult;
      f.gasUsed = quantity(x.executionGasUsed);
      if (r.createdAddress && !f.to) f.to = r.createdAddress.toString();
      const err = x.exceptionError?.error;
      if (!err) {
        if (x.returnValue.length) f.output = bytesToHex(x.returnValue);
      } else {
        open.failed = true;
        f.error = gethError(err);
        if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined;
        if (err === 'revert' && x.returnValue.length) {
          f.output = bytesToHex(x.returnValue);
          const reason = decodeRevertReason(x.returnValue);
          if (reason !== undefined) f.revertReason = reason;
        }
      }
    }
    resolve?.();
  };

  events.on('step', onStep);
  events.on('beforeMessage', onBefore);
  events.on('afterMessage', onAfter);

  return {
    /** Detaches; the top frame with the transaction's own gas figures. */
    finish(txGas: bigint, gasUsed: bigint): CallFrame | undefined {
      events.off('step', onStep);
      events.off('beforeMessage', onBefore);
      events.off('afterMessage', onAfter);
      if (!top) return undefined;
      top.frame.gas = quantity(txGas);
      top.frame.gasUsed = quantity(gasUsed);
      return close(top, false, config);
    },
  };
}

function close(o: OpenFrame, parentFailed: boolean, config: CallTracerConfig): CallFrame {
  const failed = parentFailed || o.failed;
  const f: CallFrame = { ...o.frame };
  if (o.calls.length && !config.onlyTopCall) f.calls = o.calls.map((c) => close(c, failed, config));
  if (config.withLog && !failed && o.logs.length) f.logs = o.logs;
  // geth's field order, undefined ones left out.
  const out: Record<string, unknown> = {};
  for (const k of [
    'from',
    'gas',
    'gasUsed',
    'to',
    'input',
    'output',
    'error',
    'revertReason',
    'calls',
    'logs',
    'value',
    'type',
  ] as const)
    if (f[k] !== undefined) out[k] = f[k];
  return out as unknown as CallFrame;
}
