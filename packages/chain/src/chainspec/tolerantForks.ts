/**
 * A chain from a geth genesis schedules early forks by block number and later ones by time.
 * @ethereumjs refuses a (number, timestamp) pair where the number is still before the merge but
 * the time is past a timestamp fork ("Maximum HF determined by block number is lower than
 * timestamp HF"): exactly the block a node builds on top of a freshly imported genesis, stamped
 * with today's time. Such a block follows the forks its number reaches; copies keep this.
 */
import type { Common } from '@ethereumjs/common';

export function withTolerantForks(common: Common): Common {
  const original = common.setHardforkBy;
  common.setHardforkBy = function (this: Common, opts: Parameters<Common['setHardforkBy']>[0]) {
    try {
      return original.call(this, opts);
    } catch (e) {
      if (opts.blockNumber === undefined || !/lower than timestamp HF/.test((e as Error).message)) throw e;
      return original.call(this, { blockNumber: opts.blockNumber });
    }
  };
  return common;
}
