/** State override sets in requests: eth_simulateV1 (per block), eth_call and eth_estimateGas. */
import type { AccountOverride } from '../execution/stateOverrides.js';
import { bytesToHex } from '../primitives/hex.js';
import { invalidParams } from './errors.js';
import { parseData, parseQuantity } from './params.js';

const OVERRIDE_FIELDS = new Set([
  'balance',
  'nonce',
  'code',
  'state',
  'stateDiff',
  'movePrecompileToAddress',
]);

/**
 * A state override set (address -> account override), as eth_simulateV1, eth_call and
 * eth_estimateGas take it; `where` starts each error message ("invalid argument 2 (stateOverrides)").
 */
export function parseStateOverrides(v: unknown, where: string): Map<string, AccountOverride> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalidParams(`${where}: expected an object of address to account override`);
  const out = new Map<string, AccountOverride>();
  for (const [addr, raw] of Object.entries(v as Record<string, any>)) {
    const fail =
      (k: string) =>
      (why: string): never => {
        throw invalidParams(`${where}.${addr}${k ? `.${k}` : ''}: ${why}`);
      };
    const a = bytesToHex(parseData(addr, fail(''), 20));
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('')('expected an object');
    for (const k of Object.keys(raw))
      if (!OVERRIDE_FIELDS.has(k))
        fail(k)(`unknown field (expected one of ${[...OVERRIDE_FIELDS].join(', ')})`);
    const slots = (m: unknown, k: string): [Uint8Array, Uint8Array][] => {
      if (typeof m !== 'object' || Array.isArray(m)) fail(k)('expected an object of slot to value');
      return Object.entries(m as Record<string, unknown>).map(([s, val]) => [
        parseData(s, fail(k), 32),
        parseData(val, fail(k), 32),
      ]);
    };
    out.set(a, {
      balance: raw.balance != null ? parseQuantity(raw.balance, fail('balance')) : undefined,
      nonce: raw.nonce != null ? parseQuantity(raw.nonce, fail('nonce')) : undefined,
      code: raw.code != null ? parseData(raw.code, fail('code')) : undefined,
      state: raw.state != null ? slots(raw.state, 'state') : undefined,
      stateDiff: raw.stateDiff != null ? slots(raw.stateDiff, 'stateDiff') : undefined,
      movePrecompileToAddress:
        raw.movePrecompileToAddress != null
          ? parseData(raw.movePrecompileToAddress, fail('movePrecompileToAddress'), 20)
          : undefined,
    });
  }
  return out;
}
