// The example of src/trie/README.md, kept runnable: if this changes, change the README too.
import { expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { EMPTY_TRIE_ROOT, MemoryNodeStore, MerkleTrie, orderedTrieRoot } from '../src/trie/index.js';

it('README example', async () => {
  await initKeccak(); // once, at start-up

  const store = new MemoryNodeStore(); // LevelDB in the node
  const state = MerkleTrie.empty(store);
  const alice = keccak256(Uint8Array.from(Buffer.from('f39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'hex')));
  await state.update([
    [alice, Uint8Array.of(0xc4, 0x01, 0x02, 0x80, 0x80)], // RLP-encoded account
    [keccak256(Uint8Array.of(2)), Uint8Array.of(0x05)],
  ]);
  const { root, nodes } = state.commit(); // hashes each new node once
  store.putAll(nodes); // persist

  const reopened = MerkleTrie.at(root, store); // reads nodes only when touched
  expect(await reopened.get(alice)).toEqual(Uint8Array.of(0xc4, 0x01, 0x02, 0x80, 0x80));
  const proof = await reopened.createProof(alice); // eth_getProof's accountProof
  expect(keccak256(proof[0])).toEqual(root);

  expect(orderedTrieRoot([])).toEqual(EMPTY_TRIE_ROOT); // e.g. withdrawalsRoot of a block without any
});
