/**
 * Compact stored values: accounts in the flat state and the forward diffs, slim when they have
 * no code or no storage (decision 0422), and transaction index entries (0423); each read back
 * exactly, and the values written before them read as they are.
 */
import { Account, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { accountFromFlat, fullAccount, slimAccount } from '../src/storage/flatAccount.js';
import { decodeTxPosition, encodeTxPosition } from '../src/storage/txIndex.js';

const root = new Uint8Array(32).fill(0x11);
const codeHash = new Uint8Array(32).fill(0x22);
const accounts = [
  new Account(0n, 0n), // empty
  new Account(1n, 10n ** 18n), // a wallet
  new Account(2n ** 64n - 1n, 2n ** 256n - 1n), // the largest nonce and balance
  new Account(5n, 7n, root, KECCAK256_NULL), // storage, no code
  new Account(5n, 7n, KECCAK256_RLP, codeHash), // code, no storage
  new Account(5n, 7n, root, codeHash), // a contract with storage: stored as it is
];

describe('flat-state accounts', () => {
  it('read back as the trie encodes them, byte for byte', () => {
    for (const a of accounts) {
      const rlp = a.serialize();
      const slim = slimAccount(rlp);
      expect(fullAccount(slim)).toEqual(rlp);
      expect(accountFromFlat(slim).serialize()).toEqual(rlp);
    }
  });

  it('leave out the empty storage root and the empty code hash (~64 bytes a wallet)', () => {
    const wallet = new Account(3n, 10n ** 18n).serialize();
    // 2 x 32 bytes of hashes (their items become 0x80), and the list header shrinks to one byte.
    expect(slimAccount(wallet).length).toBe(wallet.length - 65);
    expect(slimAccount(accounts[3].serialize()).length).toBeLessThanOrEqual(
      accounts[3].serialize().length - 32,
    );
    expect(slimAccount(accounts[4].serialize()).length).toBeLessThanOrEqual(
      accounts[4].serialize().length - 32,
    );
    expect(slimAccount(accounts[5].serialize())).toEqual(accounts[5].serialize());
  });

  it('reads an account stored in full (before decision 0422) as it is', () => {
    for (const a of accounts) {
      expect(fullAccount(a.serialize())).toEqual(a.serialize());
      expect(accountFromFlat(a.serialize()).serialize()).toEqual(a.serialize());
    }
  });

  it('refuses bytes that are not an account, saying so', () => {
    expect(() => slimAccount(Uint8Array.of(0xc2, 1, 2))).toThrow(/not an account/);
    expect(() => fullAccount(Uint8Array.of(0x01))).toThrow(/not an account/);
  });
});

describe('transaction index entries (decision 0423)', () => {
  it('name the block number and position in a few bytes, and read back', () => {
    for (const [n, i, len] of [
      [0n, 0, 1],
      [1n, 0, 2],
      [1_000_000n, 1_999, 6],
      [2n ** 64n - 1n, 2 ** 32 - 1, 13],
    ] as const) {
      const v = encodeTxPosition(n, i);
      expect(v.length).toBe(len);
      expect(decodeTxPosition(v)).toEqual({ number: n, index: i });
    }
  });

  it('read an entry of before (block hash + u64 position) as it is, and refuse bytes that are neither', () => {
    const old = new Uint8Array(40).fill(9);
    old.set([0, 0, 0, 0, 0, 0, 0x01, 0x02], 32);
    expect(decodeTxPosition(old)).toEqual({ blockHash: new Uint8Array(32).fill(9), index: 0x0102 });
    expect(() => decodeTxPosition(Uint8Array.of(9, 1))).toThrow(/transaction index entry of 2 bytes/);
  });
});
