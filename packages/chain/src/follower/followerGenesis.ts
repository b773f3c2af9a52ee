/**
 * The chain a follower opens: the sequencer's. A dev chain's genesis is made from the dev flags
 * (accounts, mnemonic, balance) and what the sequencer's block 0 says (chain id, gas limit, base
 * fee, timestamp); a geth chain from the same genesis.json. Either way the follower checks its
 * genesis hash against the sequencer's before it imports anything.
 */
import type { ChainConfig } from '../chainspec/chainConfig.js';
import type { SequencerClient } from './sequencerClient.js';

interface RpcHeader {
  hash: string;
  gasLimit: string;
  baseFeePerGas?: string;
  timestamp: string;
}

export async function sequencerGenesis(sequencer: SequencerClient): Promise<RpcHeader & { chainId: bigint }> {
  const [block, chainId] = await Promise.all([
    sequencer.call<RpcHeader | null>('eth_getBlockByNumber', ['0x0', false]),
    sequencer.call<string>('eth_chainId'),
  ]);
  if (!block) throw new Error(`the sequencer at ${sequencer.url} has no genesis block`);
  return { ...block, chainId: BigInt(chainId) };
}

/** The dev chain config that reproduces the sequencer's genesis, given the dev flags. */
export function devConfigLike(
  genesis: RpcHeader & { chainId: bigint },
  dev: { accounts: number; mnemonic: string; balance: bigint },
): ChainConfig {
  return {
    kind: 'dev',
    chainId: genesis.chainId.toString(),
    gasLimit: BigInt(genesis.gasLimit).toString(),
    baseFee: BigInt(genesis.baseFeePerGas ?? '0x0').toString(),
    accounts: dev.accounts,
    mnemonic: dev.mnemonic,
    balance: dev.balance.toString(),
    timestamp: Number(BigInt(genesis.timestamp)),
  };
}
