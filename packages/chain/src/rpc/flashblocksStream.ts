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
 * then the live ones: in order, without gaps. Messages are JSON text frames; a client that
 * connects to `/flashblocks?compression=brotli` gets each message Brotli-compressed in a binary
 * frame instead, as Base's public endpoint sends them (compressed once per flashblock, ahead of
 * its deadline, for all such clients).
 */
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import type { WebSocket } from 'ws';
import { sendOrDrop } from './slowReaders.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, concat, quantity, u64 } from '../primitives/hex.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';

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
  return bytesToHex(keccak256(concat(s.parent.hash(), u64(s.number))).subarray(0, 8));
}

function receiptJson(r: StoredReceipt): Record<string, unknown> {
  return {
    [RECEIPT_KIND[r.type] ?? 'Eip1559']: {
      status: quantity(r.status ?? 0),
      cumulativeGasUsed: quantity(r.cumulativeGasUsed),
      logs: r.logs.map((l) => ({
        address: bytesToHex(l.address),
        topics: l.topics.map((b) => bytesToHex(b)),
        data: bytesToHex(l.data),
      })),
    },
  };
}

/** One flashblock in Base's FlashblocksPayloadV1 JSON shape. */
export function flashblockPayload(s: PendingSnapshot): Record<string, unknown> {
  const h = s.header;
  const out: Record<string, unknown> = { payload_id: payloadIdOf(s), index: s.index };
  if (s.index === 0)
    out.base = {
      parent_beacon_block_root: bytesToHex(h.parentBeaconBlockRoot ?? ZERO32),
      parent_hash: bytesToHex(h.parentHash),
      fee_recipient: bytesToHex(h.coinbase.bytes),
      prev_randao: bytesToHex(h.mixHash),
      block_number: quantity(h.number),
      gas_limit: quantity(h.gasLimit),
      timestamp: quantity(h.timestamp),
      extra_data: bytesToHex(h.extraData),
      base_fee_per_gas: quantity(h.baseFeePerGas ?? 0n),
    };
  out.diff = {
    state_root: bytesToHex(h.stateRoot),
    receipts_root: bytesToHex(h.receiptTrie),
    logs_bloom: bytesToHex(h.logsBloom),
    gas_used: quantity(h.gasUsed),
    block_hash: bytesToHex(h.hash()),
    transactions: s.added.map((t) => bytesToHex(t.raw)),
    withdrawals: [],
    withdrawals_root: bytesToHex(h.withdrawalsRoot ?? ZERO32),
    blob_gas_used: quantity(h.blobGasUsed ?? 0n),
  };
  const balances: Record<string, string> = {};
  for (const [k, a] of s.changedAccounts) balances[k] = quantity(a?.balance ?? 0n);
  const receipts: Record<string, unknown> = {};
  for (const t of s.added) receipts[bytesToHex(t.hash)] = receiptJson(t.receipt);
  out.metadata = { block_number: Number(s.number), new_account_balances: balances, receipts };
  return out;
}

/**
 * Fans flashblocks out to `/flashblocks` sockets. `publish` is the builder's flashblock
 * listener (`prepare` its built-flashblock listener); `attach` takes a socket the server upgraded
 * on that path.
 */
/** Brotli at quality 5: ~4x smaller on flashblock JSON, a fraction of a millisecond per message. */
function brotli(msg: string): Buffer {
  return brotliCompressSync(Buffer.from(msg), {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
  });
}

/** How a `/flashblocks` client asked for its messages (`?compression=brotli`). */
export interface StreamOptions {
  brotli: boolean;
}

/**
 * Reads the query of a `/flashblocks` connection: `compression=brotli`, or nothing. Anything
 * else is refused with a message naming it (the socket is closed with code 1008).
 */
export function streamOptionsOf(query: URLSearchParams): StreamOptions | { error: string } {
  const c = query.get('compression');
  if (c === null || c === '' || c === 'none') return { brotli: false };
  if (c === 'brotli' || c === 'br') return { brotli: true };
  return { error: `unsupported compression "${c.slice(0, 40)}": use compression=brotli or none` };
}

/**
 * Fans flashblocks out to `/flashblocks` sockets. `publish` is the builder's flashblock
 * listener (`prepare` its built-flashblock listener); `attach` takes a socket the server upgraded
 * on that path.
 */
export class FlashblocksStream {
  private readonly sockets = new Set<WebSocket>();
  private readonly brotliSockets = new Set<WebSocket>();

  /** `maxBuffered`: bytes waiting on a socket past which its reader is dropped (--rpc-ws-max-buffer). */
  constructor(private readonly maxBuffered = 16 * 1024 * 1024) {}
  /** The current block's flashblocks, index 0 first (what a new client is sent on connect). */
  private current: PendingSnapshot[] = [];
  /**
   * Each flashblock's message, rendered once: ahead of its deadline (`prepare`) or when shown, if
   * a client is connected; else when one connects. With no client the node renders nothing: a
   * message carries every transaction and receipt of its flashblock, main-thread work per
   * transaction that nobody reads (docs/decisions/0411-flashblock-messages-rendered-for-a-reader.md).
   */
  private readonly rendered = new WeakMap<PendingSnapshot, { text: string; br?: Buffer }>();

  /**
   * Renders a flashblock built ahead of its deadline, so that `publish` only sends: a 200-transfer
   * message takes a few milliseconds to render, which every client would otherwise see as lateness.
   */
  prepare(s: PendingSnapshot): void {
    if (this.hasClients()) this.message(s);
  }

  publish(s: PendingSnapshot): void {
    if (s.index === 0) this.current = [];
    this.current.push(s);
    if (!this.hasClients()) return;
    const msg = this.message(s);
    for (const ws of this.sockets) sendOrDrop(ws, msg.text, this.maxBuffered);
    for (const ws of this.brotliSockets) sendOrDrop(ws, compressed(msg), this.maxBuffered);
  }

  private hasClients(): boolean {
    return this.sockets.size > 0 || this.brotliSockets.size > 0;
  }

  private message(s: PendingSnapshot): { text: string; br?: Buffer } {
    let msg = this.rendered.get(s);
    if (msg === undefined) {
      msg = { text: JSON.stringify(flashblockPayload(s)) };
      this.rendered.set(s, msg);
    }
    if (this.brotliSockets.size) compressed(msg);
    return msg;
  }

  attach(ws: WebSocket, opts: StreamOptions = { brotli: false }): void {
    const set = opts.brotli ? this.brotliSockets : this.sockets;
    set.add(ws);
    for (const snapshot of this.current) {
      const m = this.message(snapshot);
      ws.send(opts.brotli ? compressed(m) : m.text);
    }
    ws.on('close', () => set.delete(ws));
    ws.on('error', () => ws.terminate());
    // A read-only stream: anything the client sends is ignored.
  }

  close(): void {
    for (const ws of [...this.sockets, ...this.brotliSockets]) ws.terminate();
    this.sockets.clear();
    this.brotliSockets.clear();
  }
}

/** A message's Brotli form, made once. */
function compressed(m: { text: string; br?: Buffer }): Buffer {
  m.br ??= brotli(m.text);
  return m.br;
}
