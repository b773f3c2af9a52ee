/**
 * hardhat_*: the same test methods under Hardhat's names. Hardhat answers `true` where Anvil
 * answers null, and hardhat_dropTransaction a boolean; viem's test client in `hardhat` mode also
 * calls hardhat_dumpState / hardhat_loadState, which Hardhat's EDR has and wharf keeps.
 */
import { bytesToHex } from '../primitives/hex.js';
import { dev_, minGasPrice } from './anvil.js';
import { type Method, method, type Methods } from './context.js';
import { dev } from './devParams.js';

/** `m` answering true instead of Anvil's null. */
const yes = (m: Method): Method =>
  method(m.params, m.required, async (p, c, conn) => {
    await m.run(p, c, conn);
    return true;
  });

export const hardhatMethods: Methods = {
  hardhat_mine: yes(dev_.mine),
  hardhat_getAutomine: dev_.getAutomine,
  hardhat_setBalance: yes(dev_.setBalance),
  hardhat_setCode: yes(dev_.setCode),
  hardhat_setStorageAt: yes(dev_.setStorageAt),
  hardhat_setNonce: yes(dev_.setNonce),
  hardhat_impersonateAccount: yes(dev_.impersonateAccount),
  hardhat_stopImpersonatingAccount: yes(dev_.stopImpersonatingAccount),
  // Anvil answers this Hardhat-style name too (Hardhat itself has no such method).
  hardhat_autoImpersonateAccount: dev_.autoImpersonate,
  hardhat_setMinGasPrice: minGasPrice('hardhat_setMinGasPrice'),
  hardhat_setCoinbase: yes(dev_.setCoinbase),
  hardhat_setNextBlockBaseFeePerGas: yes(dev_.setNextBlockBaseFeePerGas),
  hardhat_dropTransaction: method(['hash'], 1, (p, c) => dev(c).dropTransaction(bytesToHex(p.hash(0)))),
  hardhat_dumpState: dev_.dumpState,
  hardhat_loadState: dev_.loadState,
  hardhat_reset: yes(dev_.reset),
  hardhat_setLoggingEnabled: yes(dev_.setLoggingEnabled),
  hardhat_metadata: method([], 0, async (_p, c) => {
    const i = await dev(c).nodeInfo();
    return {
      clientVersion: c.clientVersion,
      chainId: Number(i.chainId),
      instanceId: i.currentBlockHash,
      latestBlockNumber: Number(i.currentBlockNumber),
      latestBlockHash: i.currentBlockHash,
      ...(i.forkConfig.forkUrl
        ? {
            forkedNetwork: {
              chainId: Number(i.chainId),
              forkBlockNumber: Number(i.forkConfig.forkBlockNumber ?? 0n),
            },
          }
        : {}),
    };
  }),
};
