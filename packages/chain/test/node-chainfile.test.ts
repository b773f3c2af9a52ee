/**
 * geth chain files: the execution-apis chain (54 blocks through Osaka/BPO2) imports with every
 * block validated, serves with mining off, exports byte for byte, and a tampered block is refused
 * naming the block. Skipped when ../shared/conformance is not next to the checkout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RLP } from '@ethereumjs/rlp';
import { afterAll, describe, expect, it } from 'vitest';
import { exportChain, importChain } from '../src/index.js';
import { rpc, startTestNode, tempDir } from './node-helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const tests = path.resolve(here, '../../../../shared/conformance/execution-apis/tests');
const have = fs.existsSync(path.join(tests, 'chain.rlp'));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!have)('chain import and export', () => {
  it('imports, serves and exports the execution-apis chain', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const progress: number[] = [];
    const { head } = await importChain({
      dataDir,
      genesisPath: path.join(tests, 'genesis.json'),
      chainPath: path.join(tests, 'chain.rlp'),
      onProgress: (p) => progress.push(p.imported),
    });
    expect(head).toBe(54n);
    expect(progress.at(-1)).toBe(54);
    // Importing again is a no-op (resumable).
    expect(
      (
        await importChain({
          dataDir,
          genesisPath: path.join(tests, 'genesis.json'),
          chainPath: path.join(tests, 'chain.rlp'),
        })
      ).head,
    ).toBe(54n);

    const node = await startTestNode({ dataDir, mining: false });
    try {
      expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x36');
      expect(await rpc(node.url, 'eth_chainId')).toBe('0xc72dd9d5e883e');
      const latest = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
      expect(latest.hash).toBe('0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7');
    } finally {
      await node.stop({ keepData: true });
    }

    const out = path.join(dataDir, 'out.rlp');
    expect(await exportChain({ dataDir, outPath: out })).toEqual({ blocks: 54 });
    expect(Buffer.compare(fs.readFileSync(out), fs.readFileSync(path.join(tests, 'chain.rlp')))).toBe(0);
  });

  it('starts a fresh data directory from a geth genesis.json (block 0 only, pre-London forks)', async () => {
    const node = await startTestNode({ mining: false, genesisPath: path.join(tests, 'genesis.json') });
    try {
      expect(await rpc(node.url, 'eth_chainId')).toBe('0xc72dd9d5e883e');
      expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x0');
      const pending = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false]);
      expect(pending.baseFeePerGas).toBeUndefined();
      expect(pending.parentHash).toBe('0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99');
    } finally {
      await node.stop();
    }
  });

  it('refuses a tampered block, naming it and the mismatch', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    // Block 3 with a different state root.
    const data = fs.readFileSync(path.join(tests, 'chain.rlp'));
    const blocks: Uint8Array[] = [];
    let rest: Uint8Array = data;
    while (rest.length) {
      const { remainder } = RLP.decode(rest, true);
      blocks.push(rest.subarray(0, rest.length - remainder.length));
      rest = remainder;
    }
    const b3 = RLP.decode(blocks[2]) as any[];
    b3[0][3] = new Uint8Array(32).fill(7);
    const tampered = path.join(dataDir, 'bad.rlp');
    fs.writeFileSync(tampered, Buffer.concat([...blocks.slice(0, 2), RLP.encode(b3)]));
    await expect(
      importChain({ dataDir, genesisPath: path.join(tests, 'genesis.json'), chainPath: tampered }),
    ).rejects.toThrow(/block 3.*stateRoot/);
  });
});
