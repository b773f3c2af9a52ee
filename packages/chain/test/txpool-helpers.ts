/**
 * What the txpool tests share: the chain they sign for (Prague, chain id 31337, native sender
 * recovery as in the node), test signers, and a fake account state (the pool's state is not
 * under test).
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { nativeEcrecover, type PoolStateReader } from '../src/txpool/index.js';

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
