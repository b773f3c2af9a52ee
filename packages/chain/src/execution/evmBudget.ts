/**
 * The time a request's EVM execution may take (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1, debug_trace*), and the turns it gives the rest of the node while it runs.
 *
 * @ethereumjs's interpreter awaits every opcode, but only on promises that are already resolved
 * (microtasks): a jump loop with 2^64 gas held the thread for good, timers (flashblocks) and
 * sockets (eth_blockNumber, SIGTERM's handler) included. A budget wraps, on ONE VM's own opcode
 * table, the opcodes through which execution can go on for long: jumps (every loop), calls and
 * creations (every recursion, and a precompile's work), and those whose cost grows with memory
 * (hashing, copies, logs). Each wrapped opcode looks at the clock; past its slice the execution
 * waits for its next turn (`EvmScheduler.turn`: behind queued requests, never in the builder's
 * window), and past the deadline it throws EvmTimeout, which nothing in the EVM catches.
 * Straight-line code between two such opcodes is at most one contract's code (24 KiB).
 * Decision and measurements: docs/decisions/0100-evm-calls-in-slices.md.
 */
import { performance } from 'node:perf_hooks';
import type { VM } from '@ethereumjs/vm';

/** geth's --rpc.gascap. */
export const DEFAULT_RPC_GAS_CAP = 50_000_000n;
/** geth's --rpc.evmtimeout. */
export const DEFAULT_RPC_EVM_TIMEOUT_MS = 5_000;
/** How long an execution runs before it lets other work in. */
export const EVM_SLICE_MS = 3;

/** geth's answer when a call runs past --rpc.evmtimeout: `execution aborted (timeout = 5s)`. */
export class EvmTimeout extends Error {
  override readonly name = 'EvmTimeout';
  constructor(readonly timeoutMs: number) {
    super(`execution aborted (timeout = ${goDuration(timeoutMs)})`);
  }
}

/** Go's time.Duration.String for whole milliseconds: 5s, 1.5s, 500ms. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  return `${ms / 1000}s`;
}

/** Where a sliced execution waits for its next turn. Consumer: EvmBudget. */
export interface EvmScheduler {
  /** Resolves when the execution may go on (other requests ran, no flashblock is due). */
  turn(): Promise<void>;
  /** true when the execution should stop now and wait for a turn (a flashblock is due). */
  mustYield(): boolean;
}

/** Without the RPC server (tests, tools): a turn of the event loop. */
export const immediateScheduler: EvmScheduler = {
  turn: () => new Promise((resolve) => setImmediate(resolve)),
  mustYield: () => false,
};

// JUMP, JUMPI; CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL; KECCAK256,
// CALLDATACOPY, CODECOPY, EXTCODECOPY, RETURNDATACOPY, MCOPY, LOG0..LOG4.
const CHECKED = [
  0x56, 0x57, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0x20, 0x37, 0x39, 0x3c, 0x3e, 0x5e, 0xa0, 0xa1, 0xa2, 0xa3,
  0xa4,
];

interface OpEntry {
  opcodeInfo: { isAsync: boolean };
  opHandler: (runState: unknown, common: unknown) => unknown;
  gasHandler?: unknown;
}

export class EvmBudget {
  readonly deadline: number;
  private sliceEnd: number;
  /** Wrapped opcodes run; the clocks cost as much as a cheap opcode, so every 16th looks. */
  private ops = 0;

  constructor(
    readonly timeoutMs: number,
    private readonly scheduler: EvmScheduler = immediateScheduler,
    private readonly sliceMs = EVM_SLICE_MS,
  ) {
    const now = performance.now();
    this.deadline = timeoutMs > 0 ? now + timeoutMs : Number.POSITIVE_INFINITY;
    // The first check waits for a turn: a burst of such requests starts one at a time.
    this.sliceEnd = now;
  }

  /**
   * Called between executions (estimateGas's tries, simulate's calls, a block's traces) and by
   * the wrapped opcodes: throws past the deadline, waits for a turn past the slice.
   */
  check(): Promise<void> | undefined {
    const now = performance.now();
    if (now >= this.deadline) throw new EvmTimeout(this.timeoutMs);
    if (now < this.sliceEnd && !this.scheduler.mustYield()) return undefined;
    return this.pause();
  }

  private async pause(): Promise<void> {
    await this.scheduler.turn();
    while (this.scheduler.mustYield()) await this.scheduler.turn();
    const now = performance.now();
    if (now >= this.deadline) throw new EvmTimeout(this.timeoutMs);
    this.sliceEnd = now + this.sliceMs;
  }

  /** Makes `vm`'s long-running opcodes check this budget (this VM only; others are untouched). */
  attach(vm: VM): void {
    const evm = vm.evm as unknown as { _opcodeMap: OpEntry[]; getActiveOpcodes: () => unknown };
    const wrap = () => {
      const map = evm._opcodeMap;
      for (const code of CHECKED) {
        const e = map[code];
        if (!e?.opHandler || (e as { budgeted?: boolean }).budgeted) continue;
        const inner = e.opHandler;
        const wasAsync = e.opcodeInfo.isAsync;
        map[code] = {
          ...e,
          // Opcode objects are frozen: a child that says the handler is to be awaited.
          opcodeInfo: Object.create(e.opcodeInfo, { isAsync: { value: true } }),
          opHandler: (runState, common) => {
            const wait = (++this.ops & 15) === 0 ? this.check() : undefined;
            if (wait) return wait.then(() => inner(runState, common));
            const r = inner(runState, common);
            return wasAsync ? r : undefined;
          },
          budgeted: true,
        } as OpEntry;
      }
    };
    // A hardfork change rebuilds the table: wrap the new one too.
    const rebuild = evm.getActiveOpcodes.bind(evm);
    evm.getActiveOpcodes = () => {
      const r = rebuild();
      wrap();
      return r;
    };
    wrap();
  }
}
