/**
 * Blocks, transactions, receipts and logs in geth's JSON shapes (the conformance suite compares
 * them field by field). The only place bytes and bigints become hex strings.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { generateAddress } from '@ethereumjs/util';
import { bigintToBytes, bytesToHex, quantity } from '../primitives/hex.js';
import type { StoredLog, StoredReceipt } from '../storage/receiptCodec.js';
import { encodingsOf, hashesOf } from '../builder/lazyTransactions.js';
import { encodeBlock } from '../execution/blockEncoding.js';

type Json = Record<string, unknown>;

export interface TxPlace {
  blockHash: Uint8Array | null;
  blockNumber: bigint | null;
  blockTimestamp: bigint | null;
  index: number | null;
  baseFee?: bigint;
}

/**
 * How the block being built names itself (design, "`pending`"). 'base': as Base's node answers —
 * `number` set, `hash` the zero hash, pre-confirmed receipts and logs with the zero hash as
 * `blockHash` (ethers v6 and cast parse these). 'nulls': the spec table's wording (`number`,
 * `hash` and `blockHash` null), behind `--pending-nulls`. Pre-confirmed transaction objects have
 * `blockHash` null in both (as Base's `eth_getTransactionByHash`).
 */
export type PendingShape = 'base' | 'nulls';

export const ZERO_HASH: Uint8Array = new Uint8Array(32);

/** The `blockHash` of the block being built, in a shape. */
export function pendingHashOf(shape: PendingShape): Uint8Array | null {
  return shape === 'base' ? ZERO_HASH : null;
}

const NO_PLACE: TxPlace = { blockHash: null, blockNumber: null, blockTimestamp: null, index: null };

export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!tx.supports(Capability.EIP1559FeeMarket)) return (tx as { gasPrice: bigint }).gasPrice;
  const t = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  if (baseFee === undefined) return t.maxFeePerGas;
  const tip =
    t.maxFeePerGas - baseFee < t.maxPriorityFeePerGas ? t.maxFeePerGas - baseFee : t.maxPriorityFeePerGas;
  return baseFee + tip;
}

function accessListJson(tx: TypedTransaction): Json[] {
  const list = (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList ?? [];
  return list.map(([a, keys]) => ({ address: bytesToHex(a), storageKeys: keys.map((b) => bytesToHex(b)) }));
}

export function formatTx(tx: TypedTransaction, from: Uint8Array, place: TxPlace = NO_PLACE): Json {
  const t = tx as unknown as Record<string, any>;
  const out: Json = {
    blockHash: place.blockHash ? bytesToHex(place.blockHash) : null,
    blockNumber: place.blockNumber === null ? null : quantity(place.blockNumber),
    blockTimestamp: place.blockTimestamp === null ? null : quantity(place.blockTimestamp),
    from: bytesToHex(from),
    gas: quantity(tx.gasLimit),
    gasPrice: '',
    hash: bytesToHex(tx.hash()),
    input: bytesToHex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    transactionIndex: place.index === null ? null : quantity(place.index),
    value: quantity(tx.value),
    type: quantity(tx.type),
  };
  if (tx.type === 0) {
    out.gasPrice = quantity(t.gasPrice);
    const v = t.v as bigint;
    if (v >= 35n) out.chainId = quantity((v - 35n) / 2n);
    out.v = quantity(v);
    out.r = quantity(t.r);
    out.s = quantity(t.s);
    return out;
  }
  if (tx.type === 1) out.gasPrice = quantity(t.gasPrice);
  else {
    out.gasPrice = quantity(
      place.blockHash && place.baseFee !== undefined ? effectiveGasPrice(tx, place.baseFee) : t.maxFeePerGas,
    );
    out.maxFeePerGas = quantity(t.maxFeePerGas);
    out.maxPriorityFeePerGas = quantity(t.maxPriorityFeePerGas);
  }
  if (tx.type === 3) out.maxFeePerBlobGas = quantity(t.maxFeePerBlobGas);
  out.accessList = accessListJson(tx);
  out.chainId = quantity(t.chainId);
  if (tx.type === 3)
    out.blobVersionedHashes = (t.blobVersionedHashes as string[]).map((h) => h.toLowerCase());
  if (tx.type === 4)
    out.authorizationList = (t.authorizationList as Uint8Array[][]).map(
      ([chainId, address, nonce, yParity, r, s]) => ({
        chainId: quantity(toBig(chainId)),
        address: bytesToHex(address),
        nonce: quantity(toBig(nonce)),
        yParity: quantity(toBig(yParity)),
        r: quantity(toBig(r)),
        s: quantity(toBig(s)),
      }),
    );
  out.v = quantity(t.v);
  out.r = quantity(t.r);
  out.s = quantity(t.s);
  out.yParity = quantity(t.v);
  return out;
}

function toBig(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b));
}

export function formatHeader(h: BlockHeader, hash: Uint8Array | null, pending?: PendingShape): Json {
  const out: Json = {
    number: pending === 'nulls' ? null : quantity(h.number),
    hash: hash ? bytesToHex(hash) : null,
    parentHash: bytesToHex(h.parentHash),
    nonce: bytesToHex(h.nonce),
    mixHash: bytesToHex(h.mixHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    logsBloom: bytesToHex(h.logsBloom),
    stateRoot: bytesToHex(h.stateRoot),
    miner: bytesToHex(h.coinbase.bytes),
    difficulty: quantity(h.difficulty),
    extraData: bytesToHex(h.extraData),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = quantity(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = quantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = quantity(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash);
  return out;
}

/**
 * A block's encoded size. The pending block's (asked for at every flashblock by those who follow
 * it) is counted from its entries' own encodings: serializing it built every transaction's
 * @ethereumjs object first, ~8 µs each, 2,000 of them in a busy block.
 */
function sizeOf(block: Block): number {
  const raws = block.withdrawals?.length ? undefined : encodingsOf(block.transactions);
  if (!raws) return block.serialize().length;
  return encodeBlock(block.header.raw(), raws, block.withdrawals !== undefined).length;
}

export function formatBlock(
  block: Block,
  full: boolean,
  senders: Uint8Array[],
  opts: { pending?: PendingShape; size?: number } = {},
): Json {
  const h = block.header;
  const hash = opts.pending ? pendingHashOf(opts.pending) : block.hash();
  const out = formatHeader(h, hash, opts.pending);
  out.size = quantity(opts.size ?? sizeOf(block));
  out.uncles = [];
  out.transactions = full
    ? block.transactions.map((tx, i) =>
        formatTx(tx, senders[i], {
          // A pre-confirmed transaction object: blockHash null, as eth_getTransactionByHash.
          blockHash: opts.pending ? null : hash,
          blockNumber: h.number,
          blockTimestamp: h.timestamp,
          index: i,
          baseFee: h.baseFeePerGas,
        }),
      )
    : hashesOf(block.transactions).map((h) => bytesToHex(h));
  if (block.withdrawals !== undefined)
    out.withdrawals = block.withdrawals.map((w) => ({
      index: quantity(w.index),
      validatorIndex: quantity(w.validatorIndex),
      address: bytesToHex(w.address.bytes),
      amount: quantity(w.amount),
    }));
  return out;
}

export interface LogPlace {
  blockHash: Uint8Array | null;
  blockNumber: bigint;
  blockTimestamp: bigint;
  txHash: Uint8Array;
  txIndex: number;
  logIndex: number;
}

export function formatLog(log: StoredLog, p: LogPlace, removed = false): Json {
  return {
    address: bytesToHex(log.address),
    topics: log.topics.map((b) => bytesToHex(b)),
    data: bytesToHex(log.data),
    blockNumber: quantity(p.blockNumber),
    transactionHash: bytesToHex(p.txHash),
    transactionIndex: quantity(p.txIndex),
    blockHash: p.blockHash ? bytesToHex(p.blockHash) : null,
    blockTimestamp: quantity(p.blockTimestamp),
    logIndex: quantity(p.logIndex),
    removed,
  };
}

export interface ReceiptOptions {
  /** The block being built: `blockHash` per the shape (here and in the logs), `blockNumber` its number. */
  pending?: PendingShape;
  blobGasPrice?: bigint;
}

/** All receipts of a block, with block-wide log indexes. */
export function formatReceipts(
  block: Block,
  receipts: StoredReceipt[],
  senders: Uint8Array[],
  opts: ReceiptOptions = {},
): Json[] {
  let logIndex = 0;
  return receipts.map((r, i) => {
    const out = receiptJson(block, receipts, i, senders[i], logIndex, opts);
    logIndex += r.logs.length;
    return out;
  });
}

/** The receipt of transaction `i` of a block; its logs are numbered after those of 0..i-1. */
export function formatReceipt(
  block: Block,
  receipts: readonly StoredReceipt[],
  i: number,
  sender: Uint8Array,
  opts: ReceiptOptions = {},
): Json {
  let logIndex = 0;
  for (let j = 0; j < i; j++) logIndex += receipts[j].logs.length;
  return receiptJson(block, receipts, i, sender, logIndex, opts);
}

function receiptJson(
  block: Block,
  receipts: readonly StoredReceipt[],
  i: number,
  sender: Uint8Array,
  firstLogIndex: number,
  opts: ReceiptOptions,
): Json {
  const h = block.header;
  const blockHash = opts.pending ? pendingHashOf(opts.pending) : block.hash();
  const r = receipts[i];
  const tx = block.transactions[i];
  const txHash = tx.hash();
  const gasUsed = r.cumulativeGasUsed - (i > 0 ? receipts[i - 1].cumulativeGasUsed : 0n);
  let logIndex = firstLogIndex;
  const out: Json = {
    blockHash: blockHash ? bytesToHex(blockHash) : null,
    blockNumber: quantity(h.number),
    contractAddress: tx.to ? null : bytesToHex(generateAddress(sender, bigintToBytes(tx.nonce))),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    effectiveGasPrice: quantity(effectiveGasPrice(tx, h.baseFeePerGas)),
    from: bytesToHex(sender),
    gasUsed: quantity(gasUsed),
    logs: r.logs.map((l) =>
      formatLog(l, {
        blockHash,
        blockNumber: h.number,
        blockTimestamp: h.timestamp,
        txHash,
        txIndex: i,
        logIndex: logIndex++,
      }),
    ),
    logsBloom: bytesToHex(r.bloom),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    transactionHash: bytesToHex(txHash),
    transactionIndex: quantity(i),
    type: quantity(tx.type),
  };
  if (r.postState) out.root = bytesToHex(r.postState);
  else out.status = quantity(r.status ?? 0);
  if (tx.type === 3) {
    const blobs = BigInt((tx as unknown as { blobVersionedHashes: unknown[] }).blobVersionedHashes.length);
    out.blobGasUsed = quantity(blobs * 131072n);
    out.blobGasPrice = quantity(opts.blobGasPrice ?? 1n);
  }
  return out;
}
