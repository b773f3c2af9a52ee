/**
 * eth_getProof on our own chain: account and storage proofs verify against the block's state
 * root (independently, with @ethereumjs/mpt), at latest and at an earlier block.
 */
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

async function verify(proof: any, stateRoot: string) {
  // The first node of a proof hashes to the root it proves against.
  expect(keccak256(proof.accountProof[0])).toBe(stateRoot);
  const leaf = await verifyMerkleProof(bytes(keccak256(proof.address)), proof.accountProof.map(bytes));
  expect(leaf).not.toBeNull();
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf!) as Uint8Array[];
  expect(BigInt(`0x${Buffer.from(nonce).toString('hex') || '0'}`)).toBe(BigInt(proof.nonce));
  expect(BigInt(`0x${Buffer.from(balance).toString('hex') || '0'}`)).toBe(BigInt(proof.balance));
  expect(`0x${Buffer.from(storageRoot).toString('hex')}`).toBe(proof.storageHash);
  expect(`0x${Buffer.from(codeHash).toString('hex')}`).toBe(proof.codeHash);
  for (const s of proof.storageProof) {
    expect(keccak256(s.proof[0])).toBe(proof.storageHash);
    const slot = bytes(`0x${BigInt(s.key).toString(16).padStart(64, '0')}`);
    const v = await verifyMerkleProof(bytes(keccak256(slot)), s.proof.map(bytes));
    expect(BigInt(`0x${Buffer.from(RLP.decode(v!) as Uint8Array).toString('hex') || '0'}`)).toBe(
      BigInt(s.value),
    );
  }
}

describe('eth_getProof', () => {
  it('proves accounts and storage at latest and at an earlier block', async () => {
    const { abi, bytecode } = compileStore();
    const chain = {
      id: 31337,
      name: 'wharf',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    } as const;
    const wallet = createWalletClient({
      chain,
      transport: http(node.url),
      account: privateKeyToAccount(node.accounts[8].privateKey),
    });
    const deploy = await wallet.deployContract({ abi, bytecode });
    const { contractAddress } = await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [deploy]));
    const h1 = await wallet.writeContract({
      address: contractAddress,
      abi,
      functionName: 'set',
      args: [77n],
    });
    const r1 = await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [h1]));
    const h2 = await wallet.writeContract({
      address: contractAddress,
      abi,
      functionName: 'set',
      args: [88n],
    });
    await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [h2]));

    const latest = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
    const now = await rpc(node.url, 'eth_getProof', [contractAddress, ['0x0'], 'latest']);
    expect(BigInt(now.storageProof[0].value)).toBe(88n);
    await verify(now, latest.stateRoot);

    const earlier = await rpc(node.url, 'eth_getBlockByNumber', [r1.blockNumber, false]);
    const then = await rpc(node.url, 'eth_getProof', [contractAddress, ['0x0'], r1.blockNumber]);
    expect(BigInt(then.storageProof[0].value)).toBe(77n);
    await verify(then, earlier.stateRoot);

    const eoa = await rpc(node.url, 'eth_getProof', [node.accounts[0].address, [], 'latest']);
    await verify(eoa, latest.stateRoot);
    const absent = await rpc(node.url, 'eth_getProof', [
      '0x00000000000000000000000000000000000b0b0b',
      [],
      'latest',
    ]);
    expect(absent.balance).toBe('0x0');
    expect(absent.storageHash).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
  });
});
