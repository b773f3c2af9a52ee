/**
 * The `/flashblocks` WebSocket: every published flashblock as one JSON text message in Base's
 * FlashblocksPayloadV1 shape, so tools written for Base's stream can follow this node.
 *
 *   { payload_id, index,
 *     base?:  { parent_beacon_block_root, parent_hash, fee_recipient, prev_randao, block_number,
 *               gas_limit, timestamp, extra_data, base_fee_per_gas }          (index 0 only)
 *     diff:   { state_root, receipts_root, logs_bloom, gas_used, block_hash, transactions,
 *               withdrawals, withdrawals_root, blob_gas_used }     (cumulative roots; this
 *                                                                   flashblock's raw transactions)
 *     metadata: { block_number, new_account_balances, receipts } }
 *
 * A client that connects mid-block first receives the current block's flashblocks from index 0,
 * then the live ones: in order, without gaps. Messages are plain JSON (Base's public endpoint
 * Brotli-compresses them).
 */
import type { WebSocket } from 'ws';
import { sendOrDrop } from './slowReaders.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, concat, quantity, u64 } from '../primitives/hex.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';

const hex = bytesToHex;
const ZERO32 = new Uint8Array(32);
const RECEIPT_KIND: Record<number, string> = {
  0: 'Legacy',
  1: 'Eip2930',
  2: 'Eip1559',
  3: 'Eip4844',
  4: 'Eip7702',
};

/** Base's payload id: 8 bytes naming the block being built (here: from its parent and number). */
export function payloadIdOf(s: PendingSnapshot): string {
  return hex(keccak256(concat(s.parent.hash(), u64(s.number))).subarray(0, 8));
}

function receiptJson(r: StoredReceipt): Record<string, unknown> {
  return {
    [RECEIPT_KIND[r.type] ?? 'Eip1559']: {
      status: quantity(r.status ?? 0),
      cumulativeGasUsed: quantity(r.cumulativeGasUsed),
      logs: r.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
    },
  };
}

/** One flashblock in Base's FlashblocksPayloadV1 JSON shape. */
export function flashblockPayload(s: PendingSnapshot): Record<string, unknown> {
  const h = s.header;
  const out: Record<string, unknown> = { payload_id: payloadIdOf(s), index: s.index };
  if (s.index === 0)
    out.base = {
      parent_beacon_block_root: hex(h.parentBeaconBlockRoot ?? ZERO32),
      parent_hash: hex(h.parentHash),
      fee_recipient: hex(h.coinbase.bytes),
      prev_randao: hex(h.mixHash),
      block_number: quantity(h.number),
      gas_limit: quantity(h.gasLimit),
      timestamp: quantity(h.timestamp),
      extra_data: hex(h.extraData),
      base_fee_per_gas: quantity(h.baseFeePerGas ?? 0n),
    };
  out.diff = {
    state_root: hex(h.stateRoot),
    receipts_root: hex(h.receiptTrie),
    logs_bloom: hex(h.logsBloom),
    gas_used: quantity(h.gasUsed),
    block_hash: hex(h.hash()),
    transactions: s.added.map((t) => hex(t.raw)),
    withdrawals: [],
    withdrawals_root: hex(h.withdrawalsRoot ?? ZERO32),
    blob_gas_used: quantity(h.blobGasUsed ?? 0n),
  };
  const balances: Record<string, string> = {};
  for (const [k, a] of s.changedAccounts) balances[k] = quantity(a?.balance ?? 0n);
  const receipts: Record<string, unknown> = {};
  for (const t of s.added) receipts[hex(t.hash)] = receiptJson(t.receipt);
  out.metadata = { block_number: Number(s.number), new_account_balances: balances, receipts };
  return out;
}

/**
 * Fans flashblocks out to `/flashblocks` sockets. `publish` is the builder's flashblock
 * listener (`prepare` its built-flashblock listener); `attach` takes a socket the server upgraded
 * on that path.
 */
export class FlashblocksStream {
  private readonly sockets = new Set<WebSocket>();

  /** `maxBuffered`: bytes waiting on a socket past which its reader is dropped (--rpc-ws-max-buffer). */
  constructor(private readonly maxBuffered = 16 * 1024 * 1024) {}
  /** The current block's messages, index 0 first (what a new client is sent on connect). */
  private current: string[] = [];
  /** Each flashblock's message, rendered once: ahead of its deadline (`prepare`) or when shown. */
  private readonly rendered = new WeakMap<PendingSnapshot, string>();

  /**
   * Renders a flashblock built ahead of its deadline, so that `publish` only sends: a 200-transfer
   * message takes a few milliseconds to render, which every client would otherwise see as lateness.
   */
  prepare(s: PendingSnapshot): void {
    this.message(s);
  }

  publish(s: PendingSnapshot): void {
    const msg = this.message(s);
    if (s.index === 0) this.current = [];
    this.current.push(msg);
    for (const ws of this.sockets) sendOrDrop(ws, msg, this.maxBuffered);
  }

  private message(s: PendingSnapshot): string {
    let msg = this.rendered.get(s);
    if (msg === undefined) {
      msg = JSON.stringify(flashblockPayload(s));
      this.rendered.set(s, msg);
    }
    return msg;
  }

  attach(ws: WebSocket): void {
    this.sockets.add(ws);
    for (const m of this.current) ws.send(m);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', () => ws.terminate());
    // A read-only stream: anything the client sends is ignored.
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
  }
}
