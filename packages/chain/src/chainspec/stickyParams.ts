/**
 * @ethereumjs rebuilds a Common's whole parameter cache (JSON deep copies) every time a
 * transaction, header, EVM or VM is constructed (`common.copy()` + `updateParams(paramsX)`):
 * ~0.4 ms per transaction, the largest cost of decoding and sealing blocks. We merge the four
 * parameter sets once, and make later `updateParams` calls with those same sets no-ops. Copies
 * share the override, and their caches already hold the merged values.
 */
import type { Common } from '@ethereumjs/common';
import { paramsBlock } from '@ethereumjs/block';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';

export function withStickyParams(common: Common): Common {
  const merged = new Set<object>();
  const original = common.updateParams;
  const sticky = function (this: Common, params: Parameters<Common['updateParams']>[0]) {
    if (merged.has(params)) return;
    original.call(this, params);
  };
  for (const p of [paramsBlock, paramsEVM, paramsTx, paramsVM]) {
    original.call(common, p);
    merged.add(p);
  }
  common.updateParams = sticky;
  return common;
}
