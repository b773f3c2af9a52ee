/**
 * eth_config (EIP-7910): the fork in force at the head, the next scheduled one and the last one,
 * each with its blob schedule, EIP-2124 fork id, precompiles and system contracts.
 */
import type { Common } from '@ethereumjs/common';
import { PRECOMPILES } from '../execution/precompiles.js';
import { quantity } from '../primitives/hex.js';
import { method, type Methods, type RpcContext } from './context.js';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

const DEFAULT_BLOBS: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

function forkConfig(c: RpcContext, common: Common, name: string, activation: number) {
  const fork = common.copy();
  fork.setHardfork(name);
  const active = (since: string) => fork.gteHardfork(since);
  const precompiles: Record<string, string> = {};
  for (const [n, a, since] of PRECOMPILES) if (active(since)) precompiles[n] = addr(a);
  const systemContracts: Record<string, string> = {};
  if (active('cancun')) systemContracts.BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
  if (active('prague')) {
    const cfg = c.chain.spec.config;
    systemContracts.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = '0x0000bbddc7ce488642fb579f8b00f3a590007251';
    systemContracts.DEPOSIT_CONTRACT_ADDRESS = (
      cfg.kind === 'geth' ? (cfg.genesis.config.depositContractAddress ?? addr(0)) : addr(0)
    ).toLowerCase();
    systemContracts.HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935';
    systemContracts.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = '0x00000961ef480eb55e80d19ad83579a64c007002';
  }
  const cfg = c.chain.spec.config;
  const schedule = cfg.kind === 'geth' ? cfg.genesis.config.blobSchedule?.[name] : undefined;
  const genesisHash = c.reader.genesisHash();
  return {
    activationTime: activation,
    ...(active('cancun') ? { blobSchedule: schedule ?? DEFAULT_BLOBS[name] ?? DEFAULT_BLOBS.osaka } : {}),
    chainId: quantity(c.chain.spec.chainId),
    forkId: common.forkHash(name, genesisHash),
    precompiles,
    systemContracts,
  };
}

export const configMethods: Methods = {
  eth_config: method([], 0, (_p, c) => {
    const common = c.reader.pending().header.common;
    const head = c.reader.head().header;
    // Timestamp forks only (EIP-7910 covers post-merge forks).
    const forks = common.hardforks().filter((h) => h.timestamp !== undefined && h.timestamp !== null);
    const at = (h: (typeof forks)[number]) => Number(h.timestamp);
    const passed = forks.filter((h) => at(h) <= Number(head.timestamp));
    const future = forks.filter((h) => at(h) > Number(head.timestamp));
    const current = passed.at(-1) ?? { name: common.hardfork(), timestamp: 0 };
    const next = future[0];
    const last = future.at(-1);
    return {
      current: forkConfig(c, common, current.name, Number(current.timestamp ?? 0)),
      next: next ? forkConfig(c, common, next.name, at(next)) : null,
      last: last ? forkConfig(c, common, last.name, at(last)) : null,
    };
  }),
};
