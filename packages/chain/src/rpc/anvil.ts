/**
 * anvil_*: the test methods under Anvil's names, parameters and results (null where Anvil
 * answers nothing). hardhat.ts gives the same under Hardhat's names. See docs/coming-from-anvil.md.
 */
import { gzipSync } from 'node:zlib';
import { bytesToHex, quantity } from '../primitives/hex.js';
import { formatAnvilState } from '../state/anvilStateFile.js';
import type { Method } from './context.js';
import { method, type Methods, type RpcContext } from './context.js';
import { dev, flag, stateParam, u256, word } from './devParams.js';
import { invalidParams } from './errors.js';
import type { Params } from './params.js';

/** The shared implementations; each returns what Anvil returns. */
export const dev_ = {
  mine: method(['blocks', 'interval'], 0, async (p, c) => {
    const blocks = p.has(0) ? u256(p, 0) : 1n;
    if (blocks > 100_000n) p.fail(0, 'at most 100000 blocks at once');
    await dev(c).mine({ blocks: blocks === 0n ? 1n : blocks, interval: p.has(1) ? u256(p, 1) : undefined });
    return null;
  }),
  getAutomine: method([], 0, (_p, c) => dev(c).mining().automine),
  setBalance: method(['address', 'balance'], 2, async (p, c) => {
    await dev(c).setBalance(p.address(0), u256(p, 1));
    return null;
  }),
  setCode: method(['address', 'code'], 2, async (p, c) => {
    await dev(c).setCode(p.address(0), p.data(1));
    return null;
  }),
  setStorageAt: method(['address', 'slot', 'value'], 3, async (p, c) => {
    await dev(c).setStorageAt(p.address(0), word(p, 1), word(p, 2));
    return true;
  }),
  setNonce: method(['address', 'nonce'], 2, async (p, c) => {
    const n = u256(p, 1);
    if (n >= 0xffffffffffffffffn) p.fail(1, 'a nonce below 2^64-1');
    await dev(c).setNonce(p.address(0), n);
    return null;
  }),
  impersonateAccount: method(['address'], 1, (p, c) => {
    dev(c).impersonate(p.address(0));
    return null;
  }),
  stopImpersonatingAccount: method(['address'], 1, (p, c) => {
    dev(c).stopImpersonating(p.address(0));
    return null;
  }),
  setCoinbase: method(['address'], 1, async (p, c) => {
    await dev(c).setCoinbase(p.address(0));
    return null;
  }),
  setNextBlockBaseFeePerGas: method(['baseFee'], 1, async (p, c) => {
    await dev(c).setNextBlockBaseFeePerGas(u256(p, 0));
    return null;
  }),
  dropTransaction: method(['hash'], 1, (p, c) => {
    const hash = bytesToHex(p.hash(0));
    return dev(c).dropTransaction(hash) ? hash : null;
  }),
  dumpState: method([], 0, async (_p, c) =>
    bytesToHex(gzipSync(JSON.stringify(formatAnvilState(await dev(c).dumpState())))),
  ),
  loadState: method(['state'], 1, async (p, c) => {
    await dev(c).loadState(stateParam(p, 0));
    return true;
  }),
  reset: method(['options'], 0, async (p, c) => {
    await dev(c).reset(resetParam(p));
    return null;
  }),
  autoImpersonate: method(['enabled'], 1, (p, c) => {
    dev(c).setAutoImpersonate(flag(p, 0));
    return null;
  }),
  setLoggingEnabled: method(['enabled'], 1, (p, c) => {
    dev(c).setLoggingEnabled(flag(p, 0));
    return null;
  }),
} satisfies Record<string, Method>;

/** anvil_reset / hardhat_reset: `{ forking: { jsonRpcUrl, blockNumber } }` or nothing. */
function resetParam(p: Params): { url?: string; blockNumber?: bigint } | undefined {
  if (!p.has(0)) return undefined;
  const o = p.object(0);
  const f = o.forking;
  if (f === undefined || f === null) return undefined;
  if (typeof f !== 'object') p.fail(0, 'forking: expected an object');
  const { jsonRpcUrl, blockNumber } = f as Record<string, unknown>;
  if (jsonRpcUrl !== undefined && typeof jsonRpcUrl !== 'string')
    p.fail(0, 'forking.jsonRpcUrl: expected a URL');
  let n: bigint | undefined;
  if (typeof blockNumber === 'number' && Number.isSafeInteger(blockNumber) && blockNumber >= 0)
    n = BigInt(blockNumber);
  else if (typeof blockNumber === 'string' && /^0x[0-9a-fA-F]+$/.test(blockNumber)) n = BigInt(blockNumber);
  else if (blockNumber !== undefined && blockNumber !== null)
    p.fail(0, 'forking.blockNumber: expected a number');
  return { url: jsonRpcUrl as string | undefined, blockNumber: n };
}

async function nodeInfo(c: RpcContext) {
  const i = await dev(c).nodeInfo();
  return {
    currentBlockNumber: Number(i.currentBlockNumber),
    currentBlockTimestamp: Number(i.currentBlockTimestamp),
    currentBlockHash: i.currentBlockHash,
    hardFork: i.hardFork,
    transactionOrder: i.transactionOrder,
    environment: {
      baseFee: quantity(i.environment.baseFee),
      chainId: Number(i.environment.chainId),
      gasLimit: quantity(i.environment.gasLimit),
      gasPrice: quantity(i.environment.gasPrice),
    },
    forkConfig: {
      forkUrl: i.forkConfig.forkUrl ?? null,
      forkBlockNumber:
        i.forkConfig.forkBlockNumber === undefined ? null : Number(i.forkConfig.forkBlockNumber),
      forkRetryBackoff: null,
    },
  };
}

export const anvilMethods: Methods = {
  anvil_mine: dev_.mine,
  anvil_getAutomine: dev_.getAutomine,
  anvil_setBalance: dev_.setBalance,
  anvil_setCode: dev_.setCode,
  anvil_setStorageAt: dev_.setStorageAt,
  anvil_setNonce: dev_.setNonce,
  anvil_impersonateAccount: dev_.impersonateAccount,
  anvil_stopImpersonatingAccount: dev_.stopImpersonatingAccount,
  anvil_autoImpersonateAccount: dev_.autoImpersonate,
  anvil_setAutoImpersonate: dev_.autoImpersonate,
  anvil_setCoinbase: dev_.setCoinbase,
  anvil_setNextBlockBaseFeePerGas: dev_.setNextBlockBaseFeePerGas,
  anvil_dropTransaction: dev_.dropTransaction,
  anvil_dropAllTransactions: method([], 0, (_p, c) => {
    dev(c).dropAllTransactions();
    return null;
  }),
  anvil_dumpState: dev_.dumpState,
  anvil_loadState: dev_.loadState,
  anvil_reset: dev_.reset,
  anvil_nodeInfo: method([], 0, (_p, c) => nodeInfo(c)),
  anvil_setLoggingEnabled: dev_.setLoggingEnabled,
  anvil_setIntervalMining: method(['seconds'], 1, async (p, c) => {
    await dev(c).setIntervalMining(Number(u256(p, 0)));
    return null;
  }),
  anvil_increaseTime: method(['seconds'], 1, (p, c) => Number(dev(c).increaseTime(u256(p, 0)))),
  anvil_snapshot: method([], 0, async (_p, c) => quantity(await dev(c).snapshot())),
  anvil_revert: method(['id'], 1, (p, c) => dev(c).revert(u256(p, 0))),
  anvil_setAutomine: method(['enabled'], 1, async (p, c) => {
    await dev(c).setAutomine(flag(p, 0));
    return null;
  }),
  anvil_setNextBlockTimestamp: method(['timestamp'], 1, async (p, c) => {
    await dev(c).setNextBlockTimestamp(u256(p, 0));
    return null;
  }),
  anvil_setBlockGasLimit: method(['gasLimit'], 1, async (p, c) => {
    await dev(c).setBlockGasLimit(u256(p, 0));
    return true;
  }),
  anvil_setBlockTimestampInterval: method(['seconds'], 1, async (p, c) => {
    await dev(c).setBlockTimestampInterval(u256(p, 0));
    return null;
  }),
  anvil_removeBlockTimestampInterval: method([], 0, (_p, c) => dev(c).removeBlockTimestampInterval()),
  anvil_setRpcUrl: method(['url'], 1, async (p, c) => {
    const url = p.raw(0);
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) p.fail(0, 'expected an http(s) URL');
    await dev(c).setRpcUrl(url as string);
    return null;
  }),
  anvil_setMinGasPrice: minGasPrice('anvil_setMinGasPrice'),
};

/** As Anvil and Hardhat on a chain with EIP-1559 (every wharf chain): refused, naming why. */
export function minGasPrice(name: string): Method {
  return method(['gasPrice'], 1, (p, c) => {
    u256(p, 0);
    dev(c);
    throw invalidParams(`${name} is not supported when EIP-1559 is active`);
  });
}
