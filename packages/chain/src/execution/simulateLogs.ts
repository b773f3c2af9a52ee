/**
 * The logs eth_simulateV1 returns for each call, as geth's simulator traces them: contract logs
 * and, with `traceTransfers`, an ERC-7528 Transfer log (from 0xeeee...) for every value moved by
 * a call, a create or a SELFDESTRUCT, all in execution order. A frame that fails drops what it
 * logged, but the index had already been handed out: geth numbers logs with one counter per
 * block that never steps back, so indexes after a failed frame (or call) have gaps.
 *
 *   beforeMessage ─> frame opens (a transfer if it carries value)
 *   LOG0-4 handler returned ─> a contract log's place; SELFDESTRUCT handler done ─> a transfer
 *   afterMessage ─> a failed frame drops its entries (a create's transfer gets its address)
 *   receipt ─> contract entries, in order, are the receipt's logs
 *
 * The LOG and SELFDESTRUCT handlers of the simulation's own EVM are wrapped rather than a `step`
 * listener added: with one, @ethereumjs builds an event (stack and memory copied) for every
 * opcode (docs/decisions/0045-simulate-logs-follow-geth.md).
 */
import type { Address } from '@ethereumjs/util';
import { bigintToBytes, pad32 } from '../primitives/hex.js';

export interface SimLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Its index in the block (geth's counter: gaps where failed frames logged). */
  index: number;
}

// keccak256('Transfer(address,address,uint256)')
const TRANSFER_TOPIC = Uint8Array.from(
  Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'),
);
/** ERC-7528: the address that stands for ether in token-style logs. */
const ETH_ADDRESS = new Uint8Array(20).fill(0xee);
const OP_LOG0 = 0xa0;
const OP_LOG4 = 0xa4;
const OP_SELFDESTRUCT = 0xff;

/** A transfer log, or (none) the place of the receipt's next contract log. */
type Entry = { index: number; transfer?: Omit<SimLog, 'index'> };

interface Message {
  caller: Address;
  to?: Address;
  value: bigint;
  delegatecall: boolean;
}
interface MessageResult {
  createdAddress?: Address;
  execResult: { exceptionError?: unknown };
}
interface EvmEvents {
  on(event: string, listener: (...args: any[]) => void): void;
  off(event: string, listener: (...args: any[]) => void): void;
}
interface RunState {
  stack: { peek(n?: number): bigint[] };
  interpreter: { getAddress(): Address; getSelfBalance(): bigint };
}
type OpHandler = (runState: RunState, common: unknown) => unknown;
/** The simulation's EVM: its events, and its table of opcode handlers (one per EVM instance). */
export interface TracedEvm {
  events?: EvmEvents;
  _opcodeMap?: { opHandler: OpHandler }[];
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): Omit<SimLog, 'index'> {
  return {
    address: ETH_ADDRESS,
    topics: [TRANSFER_TOPIC, pad32(from), pad32(to)],
    data: pad32(bigintToBytes(value)),
  };
}

/** One per simulated block and its EVM: `trace` each call, then `logs` with its receipt's logs. */
export class SimLogTracer {
  /** Logs handed an index so far in this block, failed ones included. */
  private count = 0;
  private entries: Entry[] = [];
  /** Per open frame: where its entries begin, and its transfer waiting for a created address. */
  private frames: { start: number; create?: Entry }[] = [];

  constructor(
    private readonly evm: TracedEvm,
    private readonly traceTransfers: boolean,
  ) {
    const map = evm._opcodeMap;
    if (!map) throw new Error('simulate: the EVM has no opcode table to trace logs with');
    for (let op = OP_LOG0; op <= OP_LOG4; op++) {
      const entry = map[op];
      const handler = entry.opHandler;
      map[op] = {
        ...entry,
        opHandler: (runState, common) => {
          handler(runState, common); // synchronous: it returns once the log is added
          this.push();
        },
      };
    }
    if (traceTransfers) {
      const entry = map[OP_SELFDESTRUCT];
      const handler = entry.opHandler;
      map[OP_SELFDESTRUCT] = {
        ...entry,
        opHandler: async (runState, common) => {
          const from = runState.interpreter.getAddress().bytes;
          const to = pad32(bigintToBytes(runState.stack.peek(1)[0])).subarray(12);
          const value = runState.interpreter.getSelfBalance();
          try {
            await handler(runState, common);
          } catch (e) {
            // A SELFDESTRUCT that is done halts its frame with STOP.
            if ((e as { error?: string }).error !== 'stop') throw e;
            if (value > 0n) this.push(transferLog(from, to, value));
            throw e;
          }
        },
      };
    }
  }

  /** Runs one call with the tracer following its frames. */
  async trace<T>(run: () => Promise<T>): Promise<T> {
    const events = this.evm.events;
    if (!events) throw new Error('simulate: the EVM emits no events to trace logs with');
    this.entries = [];
    this.frames = [];
    const before = (m: Message, resolve?: () => void) => {
      const frame: { start: number; create?: Entry } = { start: this.entries.length };
      if (this.traceTransfers && m.value > 0n && !m.delegatecall) {
        const entry = this.push(transferLog(m.caller.bytes, m.to?.bytes ?? new Uint8Array(20), m.value));
        if (!m.to) frame.create = entry;
      }
      this.frames.push(frame);
      resolve?.();
    };
    const after = (r: MessageResult, resolve?: () => void) => {
      const frame = this.frames.pop();
      if (frame) {
        if (frame.create?.transfer && r.createdAddress)
          frame.create.transfer.topics[2] = pad32(r.createdAddress.bytes);
        if (r.execResult.exceptionError !== undefined) this.entries.length = frame.start;
      }
      resolve?.();
    };
    events.on('beforeMessage', before);
    events.on('afterMessage', after);
    try {
      return await run();
    } finally {
      events.off('beforeMessage', before);
      events.off('afterMessage', after);
    }
  }

  /**
   * The call's logs: empty if it failed; else its transfers in place, and its receipt's logs
   * (those of the frames that succeeded, in order) where the contract logs were.
   */
  logs(receiptLogs: [Uint8Array, Uint8Array[], Uint8Array][], failed: boolean): SimLog[] {
    if (failed) return [];
    const out: SimLog[] = [];
    let next = 0;
    for (const e of this.entries) {
      if (e.transfer) out.push({ ...e.transfer, index: e.index });
      else {
        const log = receiptLogs[next++];
        if (log) out.push({ address: log[0], topics: log[1], data: log[2], index: e.index });
      }
    }
    return out;
  }

  private push(transfer?: Omit<SimLog, 'index'>): Entry {
    const entry: Entry = { index: this.count++, transfer };
    this.entries.push(entry);
    return entry;
  }
}
