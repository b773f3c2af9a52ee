/**
 * A fork's blocks at or below the fork block: asked from the remote as JSON (eth_getBlockBy* with
 * full transactions, eth_getBlockReceipts), rebuilt into blocks whose hash must equal the
 * remote's, and stored like sealed blocks (block, canonical number, receipts, senders, tx index)
 * so that every block method and transaction lookup answers them, offline after the first read.
 */
import { type Block, createBlockFromRPC } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, concat, hexToBytes } from '../primitives/hex.js';
import { ForkError, type ForkSource } from './forkSource.js';
import { keys } from './keys.js';
import { encodeReceipt, encodeReceiptList, type StoredReceipt } from './receiptCodec.js';
import { encodeTxPosition } from './txIndex.js';

export interface RemoteBlock {
  block: Block;
  /** Consensus encodings of its receipts. */
  receipts: Uint8Array[];
  senders: Uint8Array[];
}

/** The remote's block `json` (and its receipts) as a block of ours; its hash is checked. */
export async function remoteBlock(
  source: ForkSource,
  common: Common,
  json: Record<string, any>,
): Promise<RemoteBlock> {
  let block: Block;
  try {
    block = createBlockFromRPC(json as never, [], {
      common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
  } catch (e) {
    throw new ForkError(`fork: the remote's block ${json.number} cannot be read: ${(e as Error).message}`);
  }
  if (bytesToHex(block.hash()) !== String(json.hash).toLowerCase())
    throw new ForkError(
      `fork: the remote's block ${BigInt(json.number)} hashes to ${bytesToHex(block.hash())}, not ${json.hash}: its header has fields this node does not know`,
    );
  const receiptsJson = block.transactions.length
    ? ((await source.receiptsJson(block.header.number)) ?? [])
    : [];
  const receipts = receiptsJson.map((r) => encodeReceipt(receiptOf(r)));
  const senders = (json.transactions as Record<string, any>[]).map((t) => hexToBytes(t.from));
  return { block, receipts, senders };
}

function receiptOf(r: Record<string, any>): StoredReceipt {
  return {
    type: Number(r.type ?? '0x0'),
    status: r.status === undefined ? undefined : Number(r.status),
    postState: r.root ? hexToBytes(r.root) : undefined,
    cumulativeGasUsed: BigInt(r.cumulativeGasUsed),
    bloom: hexToBytes(r.logsBloom),
    logs: (r.logs as Record<string, any>[]).map((l) => ({
      address: hexToBytes(l.address),
      topics: (l.topics as string[]).map(hexToBytes),
      data: hexToBytes(l.data),
    })),
  };
}

/** The store entries of a remote block (what a seal writes for a block, without any state). */
export function remoteBlockEntries(b: RemoteBlock): [Uint8Array, Uint8Array][] {
  const hash = b.block.hash();
  const out: [Uint8Array, Uint8Array][] = [
    [keys.block(hash), b.block.serialize()],
    [keys.receipts(hash), encodeReceiptList(b.receipts)],
    [keys.senders(hash), concat(...b.senders)],
    [keys.canonical(b.block.header.number), hash],
  ];
  b.block.transactions.forEach((tx, i) => {
    out.push([keys.txIndex(tx.hash()), encodeTxPosition(b.block.header.number, i)]);
  });
  return out;
}
