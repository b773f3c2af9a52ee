/**
 * Folds an overlay's diff into the state trie in one batch: each touched account's storage trie,
 * then the account trie. Returns the new root, the trie nodes to persist and the final accounts
 * (with their new storage roots) for the flat state.
 */
import { RLP } from '@ethereumjs/rlp';
import type { Account } from '@ethereumjs/util';
import { encodeAccount } from './accountCodec.js';
import { keccak256 } from '../crypto/keccak.js';
import { hexToBytes } from '../primitives/hex.js';
import type { TrieNodeStore } from '../trie/types.js';
import { addPathNodes, type PathNode } from '../storage/pathNodes.js';
import type { StateDiff } from './journaledState.js';
import { copyAccount } from './flatState.js';
import { DELETED_ACCOUNT } from './forkState.js';
import type { StateReader } from './stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { openTrie, type StateTrie } from './trieAdapter.js';

export interface RootResult {
  root: Uint8Array;
  /** The new trie nodes, keyed by where they go in the disk layer (storage/pathNodes.ts). */
  nodes: PathNode[];
  /** Every changed account as it is now (null = deleted), keyed by 0x address. */
  accounts: Map<string, Account | null>;
  /** The RLP of those that exist, as in their trie leaves, where the root kept it. */
  encoded?: Map<string, Uint8Array>;
  /** The account trie at `root`, nodes in memory: pass its copy() as the next call's `warm`. */
  trie: StateTrie;
}

export async function computeStateRoot(
  baseRoot: Uint8Array,
  base: StateReader,
  diff: StateDiff,
  store: TrieNodeStore,
  /** The account trie at `baseRoot` kept from an earlier call (saves reading its nodes again). */
  warm?: StateTrie,
  /** A fork's tries keep zeroed slots (slotUpdates) and deleted accounts as leaves. */
  keepZeros = false,
): Promise<RootResult> {
  const trie = warm ?? openTrie(baseRoot, store);
  const updates: [Uint8Array, Uint8Array][] = [];
  const nodes: PathNode[] = [];
  const accounts = new Map<string, Account | null>();
  const addresses = new Set([...diff.accounts.keys(), ...diff.storage.keys()]);
  for (const k of [...addresses].sort()) {
    const addr = hexToBytes(k);
    const changed = diff.accounts.get(k);
    // A copy: the overlay's own objects must keep their base storage root for the next call.
    const read = changed === undefined ? await base.readAccount(addr) : changed;
    const account = read && copyAccount(read);
    const key = keccak256(addr);
    if (!account) {
      accounts.set(k, null);
      // A fork keeps the deletion as a leaf (forkState.ts DELETED_ACCOUNT), as incrementalRoot.ts.
      updates.push([key, keepZeros ? DELETED_ACCOUNT : new Uint8Array(0)]);
      continue;
    }
    const slots = diff.storage.get(k);
    if (slots && (slots.cleared || slots.slots.size > 0)) {
      const st = openTrie(slots.cleared ? EMPTY_TRIE_ROOT : account.storageRoot, store, key);
      await st.update(slotUpdates(slots.slots, keepZeros));
      const c = st.commit();
      account.storageRoot = c.root;
      addPathNodes(nodes, key, c.nodes);
    }
    accounts.set(k, account);
    updates.push([key, encodeAccount(account)]);
  }
  await trie.update(updates);
  const c = trie.commit();
  addPathNodes(nodes, undefined, c.nodes);
  return { root: c.root, nodes, accounts, trie };
}

/** A storage diff as trie updates: secure keys, RLP values, an empty value deletes the slot (see keepZeros). */
export function slotUpdates(
  slots: Map<string, Uint8Array>,
  /** A fork keeps a zero as a leaf (RLP of empty): "zero since the fork", not "ask the remote". */
  keepZeros = false,
): [Uint8Array, Uint8Array][] {
  const out: [Uint8Array, Uint8Array][] = [];
  for (const [slot, value] of slots)
    out.push([keccak256(hexToBytes(slot)), value.length || keepZeros ? RLP.encode(value) : value]);
  return out;
}
