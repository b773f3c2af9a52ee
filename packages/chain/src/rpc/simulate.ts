/** eth_simulateV1: parameters in, simulated blocks (geth's block object plus `calls`) out. */
import { type BlockOverrides, type SimBlockInput, simulate } from '../execution/simulate.js';
import { bytesToHex, quantity } from '../primitives/hex.js';
import { parseCallArgs } from './callArgs.js';
import { stateAt } from './chainReads.js';
import { method, type Methods } from './context.js';
import { callLimits } from './limits.js';
import { invalidParams } from './errors.js';
import { formatBlock, formatLog } from './format.js';
import { parseData, parseQuantity } from './params.js';
import { parseStateOverrides } from './stateOverrides.js';

function parseBlockOverrides(v: unknown): BlockOverrides | undefined {
  if (v === undefined || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const fail =
    (k: string) =>
    (why: string): never => {
      throw invalidParams(`invalid argument 0: blockOverrides.${k}: ${why}`);
    };
  const q = (k: string) => (o[k] === undefined || o[k] === null ? undefined : parseQuantity(o[k], fail(k)));
  return {
    number: q('number'),
    time: q('time'),
    gasLimit: q('gasLimit'),
    feeRecipient: o.feeRecipient ? parseData(o.feeRecipient, fail('feeRecipient'), 20) : undefined,
    prevRandao: o.prevRandao ? parseData(o.prevRandao, fail('prevRandao'), 32) : undefined,
    baseFeePerGas: q('baseFeePerGas'),
    blobBaseFee: q('blobBaseFee'),
  };
}

export const simulateMethods: Methods = {
  eth_simulateV1: method(['payload', 'block'], 1, async (p, c) => {
    const payload = p.object(0);
    const list = payload.blockStateCalls;
    if (!Array.isArray(list)) p.fail(0, 'blockStateCalls: expected an array');
    const blocks: SimBlockInput[] = (list as any[]).map((b) => ({
      blockOverrides: parseBlockOverrides(b?.blockOverrides),
      stateOverrides: parseStateOverrides(b?.stateOverrides, 'invalid argument 0: stateOverrides'),
      calls: ((b?.calls ?? []) as unknown[]).map((call) => parseCallArgs(call, 0)),
    }));
    const r = await stateAt(c, p.blockOrHash(1));
    // On `pending` the simulated blocks follow the block being built, on its state (Base's
    // simulation on pre-confirmed state); their stateRoot is the zero hash (execution/simulate.ts).
    const base = r.block ?? c.reader.pending().block;
    const results = await simulate(c.chain, base, r.state, blocks, {
      validation: payload.validation === true,
      traceTransfers: payload.traceTransfers === true,
      limits: callLimits(c.limits, c.scheduler),
      noStateRoot: r.pending,
    });
    const full = payload.returnFullTransactions === true;
    return results.map((res) => {
      const json = formatBlock(res.block, full, res.senders);
      const h = res.block.header;
      json.calls = res.calls.map((call, i) => ({
        returnData: bytesToHex(call.returnData),
        logs: call.logs.map((l) =>
          formatLog(l, {
            blockHash: res.block.hash(),
            blockNumber: h.number,
            blockTimestamp: h.timestamp,
            txHash: res.block.transactions[i].hash(),
            txIndex: i,
            logIndex: l.index,
          }),
        ),
        gasUsed: quantity(call.gasUsed),
        maxUsedGas: quantity(call.maxUsedGas),
        status: quantity(call.status),
        ...(call.error ? { error: call.error } : {}),
      }));
      return json;
    });
  }),
};
