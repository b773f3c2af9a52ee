/**
 * Start-up: the diff layers of the blocks past the disk layer (the state trie on disk is at
 * an older block than the head, storage/pathLayers.ts), rebuilt from each block's forward state
 * diff without the EVM, each checked against the block's state root. A block sealed before a
 * crash is durable once its own batch landed (diff included), whatever the trie flush had done.
 */
import { type Account, createAccountFromRLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import { isDeletedAccount } from '../state/forkState.js';
import type { StateDiff } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { computeStateRoot } from '../state/stateRoot.js';
import { openTrie } from '../state/trieAdapter.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import type { ChainContext } from './chainContext.js';

const EMPTY = new Uint8Array(0);

/** Thrown when the database cannot give back the state of its head. */
export class StateRebuildError extends Error {
  override readonly name = 'StateRebuildError';
}

/**
 * The root of the trie on disk (the state of block keys.stateLayer - 1): the empty one before
 * block 0 and at a fork's first local block (its state is the remote's). By number, not by root:
 * a local root may equal the remote's by chance.
 */
export async function diskLayerRoot(ctx: ChainContext, start: bigint): Promise<Uint8Array> {
  const { blocks, fork } = ctx;
  if (start === 0n || (fork && start <= fork.number)) return EMPTY_TRIE_ROOT;
  const h = await blocks.headerByNumber(start - 1n);
  if (!h)
    throw new StateRebuildError(`the chain database has no block ${start - 1n}, where its state trie is`);
  return h.stateRoot;
}

export async function rebuildLayers(ctx: ChainContext): Promise<number> {
  const { store, blocks, fork } = ctx;
  const start = store.stateLayerStart;
  if (start === undefined) return 0;
  const head = blocks.head.header.number;
  // The trie the first replayed block starts from: the disk layer's, then each block's.
  const rootAt = (n: bigint, stateRoot: Uint8Array) =>
    fork && n <= fork.number ? EMPTY_TRIE_ROOT : stateRoot;
  let root = await diskLayerRoot(ctx, start);
  // A disk layer of the format before decision 0650 keeps its leaves from now on.
  if (store.needsTrieConversion) await store.convertTrieFormat(root);
  let replayed = 0;
  for (let n = start; n <= head; n++) {
    const header = await blocks.headerByNumber(n);
    const rec = await store.stateDiffOf(n);
    if (!header || !rec)
      throw new StateRebuildError(
        `the chain database lacks block ${n}'s ${header ? 'state diff' : 'header'}: its state cannot be rebuilt (start again with a new --data-dir or import the chain)`,
      );
    const want = rootAt(n, header.stateRoot);
    const diff = await toStateDiff(ctx, root, rec);
    const r = await computeStateRoot(root, nothingBelow, diff, ctx.nodes, undefined, fork !== undefined);
    if (!equalBytes(r.root, want))
      throw new StateRebuildError(
        `block ${n}'s state diff gives state root ${bytesToHex(r.root)}, its header says ${bytesToHex(want)}: the chain database is damaged`,
      );
    store.restoreLayer(n, r.nodes);
    root = want;
    replayed++;
  }
  return replayed;
}

/** Every account of a forward diff is listed with its final fields: nothing is read below. */
const nothingBelow: StateReader = {
  readAccount: async () => undefined,
  readStorage: async () => EMPTY,
  readCode: async () => EMPTY,
};

/**
 * The record as the StateDiff computeStateRoot folds in: each account with the storage root it
 * had before the block (computeStateRoot opens its storage trie there and sets the new one).
 */
async function toStateDiff(
  ctx: ChainContext,
  root: Uint8Array,
  rec: NonNullable<Awaited<ReturnType<ChainContext['store']['stateDiffOf']>>>,
): Promise<StateDiff> {
  const trie = openTrie(root, ctx.nodes);
  const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
  const cleared = new Set(rec.clearedStorage.map(bytesToHex));
  const slots = new Map<string, Map<string, Uint8Array>>();
  for (const s of rec.storage) {
    const k = bytesToHex(s.address);
    let m = slots.get(k);
    if (!m) {
      m = new Map();
      slots.set(k, m);
    }
    m.set(bytesToHex(s.slot), s.value);
  }
  for (const { address, rlp } of rec.accounts) {
    const k = bytesToHex(address);
    if (!rlp) {
      diff.accounts.set(k, null);
      continue;
    }
    const account: Account = createAccountFromRLP(rlp);
    const s = slots.get(k);
    if (s || cleared.has(k)) {
      const before = await trie.get(keccak256(address));
      account.storageRoot =
        before && !isDeletedAccount(before) ? createAccountFromRLP(before).storageRoot : EMPTY_TRIE_ROOT;
      diff.storage.set(k, { cleared: cleared.has(k), slots: s ?? new Map() });
    }
    diff.accounts.set(k, account);
  }
  return diff;
}
