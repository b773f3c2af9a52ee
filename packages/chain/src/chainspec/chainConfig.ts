/**
 * What chain this node runs, persisted once in the database so that a restart needs no flags:
 * either our dev chain (Prague, dev accounts from a mnemonic) or a geth genesis.json (imported
 * chains, whatever forks it names). `loadChainSpec` turns it into Common + genesis.
 */
import {
  type Common,
  createCommonFromGethGenesis,
  createCustomCommon,
  Hardfork,
  Mainnet,
} from '@ethereumjs/common';
import { hexToBytes } from '../primitives/hex.js';
import { createCustomCrypto, loadKzg } from './customCrypto.js';
import { deriveDevAccounts, type DerivedAccount } from './devAccounts.js';
import { withStickyParams } from './stickyParams.js';
import { withTolerantForks } from './tolerantForks.js';

export interface DevChainConfig {
  kind: 'dev';
  chainId: string;
  gasLimit: string;
  baseFee: string;
  accounts: number;
  mnemonic: string;
  balance: string;
  /** Genesis timestamp (seconds), fixed at creation so the genesis hash never changes. */
  timestamp: number;
  /**
   * A fork (--fork-url): the chain starts at the remote's block `blockNumber` (its hash and state
   * root), read through to the remote below it. Fixed at creation, like the genesis.
   */
  fork?: ForkConfig;
}

export interface ForkConfig {
  url: string;
  blockNumber: string;
  hash: string;
  stateRoot: string;
  /** The remote's block 0 (EIP-2124 fork ids), so that a restart needs no network. */
  genesisHash: string;
}

export interface GethChainConfig {
  kind: 'geth';
  genesis: GethGenesis;
}

export type ChainConfig = DevChainConfig | GethChainConfig;

export interface GethGenesis {
  config: Record<string, any> & { chainId: number };
  alloc: Record<
    string,
    { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }
  >;
  [field: string]: any;
}

export interface GenesisAccount {
  address: Uint8Array;
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage: [slot: Uint8Array, value: Uint8Array][];
}

/** Header fields of block 0 (before the state root is computed). */
export interface GenesisHeader {
  gasLimit: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  difficulty: bigint;
  nonce: Uint8Array;
  mixHash: Uint8Array;
  coinbase: Uint8Array;
  baseFeePerGas?: bigint;
}

export interface ChainSpec {
  config: ChainConfig;
  chainId: bigint;
  /** Chain rules with the fast crypto; copy() before changing its hardfork. */
  common: Common;
  genesisHeader: GenesisHeader;
  alloc: GenesisAccount[];
  devAccounts: DerivedAccount[];
  /** EIP-1559 parameters (OP Canyon for our chain, Ethereum's for imported ones). */
  baseFee: { denominator: bigint; elasticity: bigint };
}

/** Every fork through Prague active from genesis; later ones never (our chain stays on Prague). */
function devHardforks() {
  const out = [];
  for (const h of Mainnet.hardforks) {
    if (h.name === 'dao' || h.name === 'mergeNetsplitBlock') continue;
    const byTime = h.timestamp !== undefined;
    out.push(byTime ? { name: h.name, block: null, timestamp: 0 } : { name: h.name, block: 0 });
    if (h.name === Hardfork.Prague) break;
  }
  return out;
}

const big = (v: string | number | undefined, d = 0n) => (v === undefined || v === null ? d : BigInt(v));

export async function loadChainSpec(config: ChainConfig): Promise<ChainSpec> {
  if (config.kind === 'dev') {
    const chainId = BigInt(config.chainId);
    const common = withStickyParams(
      createCustomCommon({ chainId: Number(chainId), name: 'wharf', hardforks: devHardforks() }, Mainnet, {
        hardfork: Hardfork.Prague,
        customCrypto: createCustomCrypto(),
      }),
    );
    const devAccounts = deriveDevAccounts(config.mnemonic, config.accounts);
    const balance = BigInt(config.balance);
    return {
      config,
      chainId,
      common,
      devAccounts,
      // A fork's state at its first block is the remote's; dev accounts are funded after it (node.ts).
      alloc: config.fork
        ? []
        : devAccounts.map((a) => ({ address: hexToBytes(a.address), balance, nonce: 0n, storage: [] })),
      genesisHeader: {
        gasLimit: BigInt(config.gasLimit),
        timestamp: BigInt(config.timestamp),
        extraData: new Uint8Array(0),
        difficulty: 0n,
        nonce: new Uint8Array(8),
        mixHash: new Uint8Array(32),
        coinbase: new Uint8Array(20),
        baseFeePerGas: BigInt(config.baseFee),
      },
      baseFee: { denominator: 250n, elasticity: 6n },
    };
  }
  const g = config.genesis;
  // @ethereumjs 10.1.3 mishandles blobSchedule.bpo*; its built-in BPO1/BPO2 values are the same.
  const blobSchedule = { ...(g.config.blobSchedule ?? {}) };
  for (const k of Object.keys(blobSchedule)) if (k.startsWith('bpo')) delete blobSchedule[k];
  const json = { ...g, config: { ...g.config, blobSchedule } };
  const hasBlobs = g.config.cancunTime !== undefined;
  const common = withTolerantForks(
    withStickyParams(
      createCommonFromGethGenesis(json as any, {
        chain: 'imported',
        customCrypto: createCustomCrypto(hasBlobs ? await loadKzg() : undefined),
      }),
    ),
  );
  const alloc: GenesisAccount[] = Object.entries(g.alloc ?? {}).map(([addr, a]) => ({
    address: hexToBytes(addr),
    balance: big(a.balance),
    nonce: big(a.nonce),
    code: a.code ? hexToBytes(a.code) : undefined,
    storage: Object.entries(a.storage ?? {}).map(([k, v]) => [hexToBytes(k), hexToBytes(v)]),
  }));
  return {
    config,
    chainId: BigInt(g.config.chainId),
    common,
    devAccounts: [],
    alloc,
    genesisHeader: {
      gasLimit: big(g.gasLimit),
      timestamp: big(g.timestamp),
      extraData: hexToBytes(g.extraData ?? '0x'),
      difficulty: big(g.difficulty),
      nonce: pad(hexToBytes(g.nonce ?? '0x0'), 8),
      mixHash: pad(hexToBytes(g.mixHash ?? '0x'), 32),
      coinbase: pad(hexToBytes(g.coinbase ?? '0x'), 20),
      baseFeePerGas: g.baseFeePerGas ? BigInt(g.baseFeePerGas) : undefined,
    },
    baseFee: { denominator: 8n, elasticity: 2n },
  };
}

function pad(b: Uint8Array, n: number): Uint8Array {
  if (b.length >= n) return b.slice(b.length - n);
  const out = new Uint8Array(n);
  out.set(b, n - b.length);
  return out;
}
