/**
 * StateView: the read side of world state, whatever backs it (flat latest state, a trie at a
 * past root, a pending overlay). Consumers: rpc (balances, storage, code), txpool (nonces),
 * execution (the base of every JournaledState).
 */
import type { Account } from '@ethereumjs/util';

export interface StateReader {
  /** The account (read-only: it may be shared with a cache), or undefined when it does not exist. */
  readAccount(address: Uint8Array): Promise<Account | undefined>;
  /**
   * readAccount with the address's key (0x-lowercase hex) already made: overlays pass it down
   * their stack instead of encoding the address again at every layer.
   */
  readAccountKeyed?(key: string, address: Uint8Array): Promise<Account | undefined>;
  /** The slot's value, leading zeros stripped (empty for zero). `slot` is 32 bytes. */
  readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
  /** Bytecode by its keccak256 (empty for the empty code hash or an unknown hash). */
  readCode(codeHash: Uint8Array): Promise<Uint8Array>;
}

/** `reader`'s account by its key (0x-lowercase hex of `address`), through readAccountKeyed where it has one. */
export function readAccountKeyed(
  reader: StateReader,
  key: string,
  address: Uint8Array,
): Promise<Account | undefined> {
  return reader.readAccountKeyed ? reader.readAccountKeyed(key, address) : reader.readAccount(address);
}
