/**
 * evm_*: the test methods Anvil and Hardhat share under one name, with Anvil's parameter and
 * result shapes (evm_setIntervalMining takes seconds, as Anvil; Hardhat's milliseconds differ:
 * docs/coming-from-anvil.md).
 */
import { quantity } from '../primitives/hex.js';
import { method, type Methods } from './context.js';
import { dev, flag, mineParam, u256 } from './devParams.js';

export const evmMethods: Methods = {
  evm_mine: method(['params'], 0, async (p, c) => {
    await dev(c).mine(mineParam(p, 0));
    return '0x0';
  }),
  evm_increaseTime: method(['seconds'], 1, (p, c) => Number(dev(c).increaseTime(u256(p, 0)))),
  evm_setNextBlockTimestamp: method(['timestamp'], 1, async (p, c) => {
    await dev(c).setNextBlockTimestamp(u256(p, 0));
    return null;
  }),
  evm_snapshot: method([], 0, async (_p, c) => quantity(await dev(c).snapshot())),
  evm_revert: method(['id'], 1, (p, c) => dev(c).revert(u256(p, 0))),
  evm_setAutomine: method(['enabled'], 1, async (p, c) => {
    await dev(c).setAutomine(flag(p, 0));
    return null;
  }),
  evm_setIntervalMining: method(['seconds'], 1, async (p, c) => {
    const s = u256(p, 0);
    if (s > 86_400n) p.fail(0, 'at most 86400 seconds');
    await dev(c).setIntervalMining(Number(s));
    return null;
  }),
  evm_setBlockGasLimit: method(['gasLimit'], 1, async (p, c) => {
    const g = u256(p, 0);
    if (g < 21_000n || g > 0xffffffffffffffffn) p.fail(0, 'a gas limit between 21000 and 2^64-1');
    await dev(c).setBlockGasLimit(g);
    return true;
  }),
};
