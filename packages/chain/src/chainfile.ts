/**
 * `wharf chain import` / `export`: geth's formats (genesis.json, chain.rlp = concatenated RLP
 * blocks without the genesis). Import validates every block and stops at the first bad one.
 */
import fs from 'node:fs/promises';
import { createBlockFromRLP } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { GethGenesis } from './chainspec/chainConfig.js';
import { importBlock } from './execution/importBlock.js';
import { openChain } from './execution/openChain.js';
import { bytesToHex, equalBytes } from './primitives/hex.js';

export interface ImportProgress {
  imported: number;
  total: number;
}
export interface ImportChainOptions {
  dataDir: string;
  genesisPath: string;
  chainPath: string;
  onProgress?: (progress: ImportProgress) => void;
}
export interface ExportChainOptions {
  dataDir: string;
  outPath: string;
}

/** Splits concatenated RLP items (each one block). */
export function splitRlp(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let rest = data;
  while (rest.length > 0) {
    const { remainder } = RLP.decode(rest, true);
    out.push(rest.subarray(0, rest.length - remainder.length));
    rest = remainder;
  }
  return out;
}

/** Imports a geth chain.rlp on top of a geth genesis.json, validating every block. */
export async function importChain(options: ImportChainOptions): Promise<{ head: bigint }> {
  const genesis = JSON.parse(await fs.readFile(options.genesisPath, 'utf8')) as GethGenesis;
  const config = { kind: 'geth' as const, genesis };
  const ctx = await openChain(options.dataDir, config, {
    requireSame: (stored) =>
      JSON.stringify(stored) === JSON.stringify(config)
        ? undefined
        : `the data directory ${options.dataDir} holds another chain; import into an empty one`,
  });
  try {
    const items = splitRlp(await fs.readFile(options.chainPath));
    let imported = 0;
    for (const rlp of items) {
      const block = createBlockFromRLP(rlp, { common: ctx.spec.common, setHardfork: true });
      const have = await ctx.blocks.hashOf(block.header.number);
      if (have && equalBytes(have, block.hash())) {
        imported++;
        continue; // already imported (an import resumed after an interruption)
      }
      if (
        block.header.number === 1n &&
        !equalBytes(block.header.parentHash, (await ctx.blocks.byNumber(0n))!.hash())
      )
        throw new Error(
          `block 1 does not follow this genesis (parent ${bytesToHex(block.header.parentHash)}, genesis ${bytesToHex((await ctx.blocks.byNumber(0n))!.hash())})`,
        );
      await importBlock(ctx, block);
      imported++;
      options.onProgress?.({ imported, total: items.length });
    }
    return { head: ctx.blocks.head.header.number };
  } finally {
    await ctx.store.close();
  }
}

/** Writes the stored chain (without genesis) as concatenated RLP blocks, as geth does. */
export async function exportChain(options: ExportChainOptions): Promise<{ blocks: number }> {
  const ctx = await openChain(options.dataDir, () => {
    throw new Error(`no chain in ${options.dataDir}`);
  });
  try {
    const fh = await fs.open(options.outPath, 'w');
    try {
      const head = ctx.blocks.head.header.number;
      for (let n = 1n; n <= head; n++) {
        const hash = await ctx.blocks.hashOf(n);
        const raw = hash && (await ctx.blocks.rawBlock(hash));
        if (!raw) throw new Error(`block ${n} is missing from the database`);
        await fh.write(raw);
      }
      return { blocks: Number(head) };
    } finally {
      await fh.close();
    }
  } finally {
    await ctx.store.close();
  }
}
