/**
 * What the txpool tests share: the chain they sign for (Prague, chain id 31337, native sender
 * recovery as in the node), test signers, and a fake account state (the pool's state is not
 * under test).
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { type Hex, hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { nativeEcrecover } from '../src/crypto/ecrecover.js';
import type { PoolStateReader } from '../src/txpool/index.js';

export const CHAIN_ID = 31337;
export const ETHER = 10n ** 18n;
export const GWEI = 10n ** 9n;
export const RECIPIENT = '0x00000000000000000000000000000000000000aa' as const;
export const common = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, {
  hardfork: Hardfork.Prague,
  customCrypto: { ecrecover: nativeEcrecover },
});

/** Test signer i: the private key i + 1. */
export const keyOf = (i: number): Hex => `0x${(i + 1).toString(16).padStart(64, '0')}`;
export const signer = (i: number) => privateKeyToAccount(keyOf(i));
export type Signer = ReturnType<typeof signer>;

/** Nonces and balances by address (any case); an unknown account has `defaultBalance`. */
export class FakeState implements PoolStateReader {
  nonces = new Map<string, bigint>();
  balances = new Map<string, bigint>();
  constructor(private readonly defaultBalance = 0n) {}
  async getNonce(address: Hex): Promise<bigint> {
    return this.nonces.get(address.toLowerCase()) ?? 0n;
  }
  async getBalance(address: Hex): Promise<bigint> {
    return this.balances.get(address.toLowerCase()) ?? this.defaultBalance;
  }
  set(address: Hex, nonce: bigint, balance: bigint): void {
    this.nonces.set(address.toLowerCase(), nonce);
    this.balances.set(address.toLowerCase(), balance);
  }
  setNonce(s: Signer, nonce: bigint): void {
    this.nonces.set(s.address.toLowerCase(), nonce);
  }
}

/** What an EIP-1559 test transaction may set; the rest are defaults (a plain 21,000-gas transfer to RECIPIENT). */
export interface Fields {
  nonce?: number;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Hex;
  /** null: a contract creation. */
  to?: Hex | null;
  chainId?: number;
  accessList?: { address: Hex; storageKeys: Hex[] }[];
}

/** The unsigned EIP-1559 transaction `f` describes, as viem signs or serializes it. */
export function eip1559Fields(f: Fields = {}) {
  return {
    type: 'eip1559',
    chainId: f.chainId ?? CHAIN_ID,
    nonce: f.nonce ?? 0,
    gas: f.gas ?? 21_000n,
    maxFeePerGas: f.maxFeePerGas ?? 10n * GWEI,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas ?? GWEI,
    to: f.to === null ? undefined : (f.to ?? RECIPIENT),
    value: f.value ?? 0n,
    data: f.data,
    accessList: f.accessList,
  } as const;
}

/** `f` signed by `signer`: the raw bytes eth_sendRawTransaction takes. */
export async function eip1559(signer: Signer, f: Fields = {}): Promise<Uint8Array> {
  return hexToBytes(await signer.signTransaction(eip1559Fields(f)));
}
