/**
 * One message of a sequencer's `/flashblocks` stream (Base's FlashblocksPayloadV1, as
 * rpc/flashblocksStream.ts sends it), checked and decoded: a text frame is JSON, a binary frame
 * is JSON or Brotli-compressed JSON (Base's public endpoint compresses every message). A message
 * that is not a flashblock throws FlashblockMessageError naming the field; the follower logs it
 * and drops the message, never the connection's later ones.
 */
import { brotliDecompressSync } from 'node:zlib';
import type { FollowedFlashblock } from '../builder/followedBlocks.js';
import { hexToBytes } from '../primitives/hex.js';
import type { FollowedTxDecoder } from './followedTx.js';

export class FlashblockMessageError extends Error {
  override readonly name = 'FlashblockMessageError';
}

/** The message's JSON text: a text frame as is, a binary one decompressed unless it is JSON already. */
export function messageText(data: Buffer | string, maxBytes: number): string {
  if (typeof data === 'string') return data;
  if (data[0] === 0x7b /* { */) return data.toString('utf8');
  try {
    return brotliDecompressSync(data, { maxOutputLength: maxBytes }).toString('utf8');
  } catch (e) {
    throw new FlashblockMessageError(
      `a binary message that is neither JSON nor Brotli: ${(e as Error).message}`,
    );
  }
}

type Json = Record<string, unknown>;

function obj(v: unknown, what: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new FlashblockMessageError(`${what}: expected an object`);
  return v as Json;
}

function hex(v: unknown, what: string, bytes?: number): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v))
    throw new FlashblockMessageError(`${what}: expected 0x-prefixed hex bytes`);
  const b = hexToBytes(v);
  if (bytes !== undefined && b.length !== bytes)
    throw new FlashblockMessageError(`${what}: expected ${bytes} bytes, got ${b.length}`);
  return b;
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/.test(v))
    throw new FlashblockMessageError(`${what}: expected a hex quantity`);
  return BigInt(v);
}

/** Checks and decodes one flashblock message (its transactions' senders recovered). */
export async function parseFlashblock(text: string, decoder: FollowedTxDecoder): Promise<FollowedFlashblock> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FlashblockMessageError('the message is not JSON');
  }
  const m = obj(json, 'message');
  if (typeof m.payload_id !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(m.payload_id))
    throw new FlashblockMessageError('payload_id: expected 0x-prefixed hex');
  if (typeof m.index !== 'number' || !Number.isSafeInteger(m.index) || m.index < 0)
    throw new FlashblockMessageError('index: expected a whole number of at least 0');
  const diff = obj(m.diff, 'diff');
  let base: FollowedFlashblock['base'];
  if (m.base !== undefined && m.base !== null) {
    const b = obj(m.base, 'base');
    base = {
      parentHash: hex(b.parent_hash, 'base.parent_hash', 32),
      number: quantity(b.block_number, 'base.block_number'),
      timestamp: quantity(b.timestamp, 'base.timestamp'),
      gasLimit: quantity(b.gas_limit, 'base.gas_limit'),
      baseFee: quantity(b.base_fee_per_gas, 'base.base_fee_per_gas'),
      coinbase: hex(b.fee_recipient, 'base.fee_recipient', 20),
      prevRandao: hex(b.prev_randao, 'base.prev_randao', 32),
      extraData: hex(b.extra_data, 'base.extra_data'),
    };
  } else if (m.index === 0)
    throw new FlashblockMessageError('base: index 0 must carry the block header fields');
  const metadata = m.metadata === undefined ? {} : obj(m.metadata, 'metadata');
  const number =
    base?.number ??
    (metadata.block_number === undefined
      ? undefined
      : quantity(metadata.block_number, 'metadata.block_number'));
  if (number === undefined)
    throw new FlashblockMessageError('metadata.block_number: needed on a flashblock without base');
  if (!Array.isArray(diff.transactions))
    throw new FlashblockMessageError('diff.transactions: expected an array');
  const raws = diff.transactions.map((t, i) => hex(t, `diff.transactions[${i}]`));
  let txs: FollowedFlashblock['txs'];
  try {
    txs = await decoder.decodeAll(raws);
  } catch (e) {
    throw new FlashblockMessageError(`diff.transactions: ${(e as Error).message}`);
  }
  return {
    payloadId: m.payload_id.toLowerCase(),
    index: m.index,
    number,
    base,
    txs,
    stateRoot: hex(diff.state_root, 'diff.state_root', 32),
    blockHash: hex(diff.block_hash, 'diff.block_hash', 32),
  };
}
