/**
 * The flashblock journal's records on disk (builder/flashblockJournal.ts): a 4-byte big-endian
 * length, then the body. Bodies are binary (decision 0420): the transactions' own bytes once, not
 * twice as hex inside JSON. A body that starts with `{` is the JSON of journals written before it
 * and is read as before. Here, in storage/, because a sealed block's body is read from its
 * records (bodyFiles.ts, decision 0521).
 *
 *   open   0x01  number u64 | parent hash (32) | timestamp u64
 *   txs    0x02  flashblock index u32 | per transaction: length u32 | raw signed transaction
 *   void   0x03  flashblock index u32
 *   reset  0x04  (nothing: what came before is never replayed; evm_revert, anvil_reset)
 */
import { bytesToHex, hexToBytes } from '../primitives/hex.js';

export type JournalRecord =
  | { k: 'open'; number: bigint; parentHash: Uint8Array; timestamp: bigint }
  | { k: 'txs'; index: number; txs: Uint8Array[] }
  /** The append of flashblock `index` just before it was given up (budget passed): never shown. */
  | { k: 'void'; index: number }
  /** History was rewritten: the records before are not replayed (their sealed blocks still read them). */
  | { k: 'reset' };

/** Where a journal's records are: segment `segment` (its file `NNNNNN.journal`), byte `offset`. */
export interface JournalPosition {
  segment: number;
  offset: number;
}

/**
 * The records of one block in the journal: [from, to) of segment `segment`, its opening record
 * first. `complete`: nothing else is in between and every append of the block was confirmed.
 */
export interface JournalRange {
  segment: number;
  from: number;
  to: number;
  complete: boolean;
}

const OPEN = 0x01;
const TXS = 0x02;
const VOID = 0x03;
const RESET = 0x04;
const JSON_BODY = 0x7b; // '{'

export function encodeRecord(rec: JournalRecord): Buffer {
  let body: Buffer;
  if (rec.k === 'open') {
    body = Buffer.allocUnsafe(1 + 8 + 32 + 8);
    body[0] = OPEN;
    body.writeBigUInt64BE(rec.number, 1);
    body.set(rec.parentHash, 9);
    body.writeBigUInt64BE(rec.timestamp, 41);
  } else if (rec.k === 'txs') {
    let n = 1 + 4;
    for (const t of rec.txs) n += 4 + t.length;
    body = Buffer.allocUnsafe(n);
    body[0] = TXS;
    body.writeUInt32BE(rec.index, 1);
    let at = 5;
    for (const t of rec.txs) {
      body.writeUInt32BE(t.length, at);
      body.set(t, at + 4);
      at += 4 + t.length;
    }
  } else if (rec.k === 'void') {
    body = Buffer.allocUnsafe(5);
    body[0] = VOID;
    body.writeUInt32BE(rec.index, 1);
  } else body = Buffer.of(RESET);
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/**
 * The records of a journal file, in order. Stops at a torn last record (a crash mid-append) or
 * at a body that does not decode: nothing after it is trusted.
 */
export function decodeRecords(bytes: Buffer): JournalRecord[] {
  const out: JournalRecord[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const len = bytes.readUInt32BE(at);
    if (at + 4 + len > bytes.length) break; // torn last record
    const rec = decodeBody(bytes.subarray(at + 4, at + 4 + len));
    if (!rec) break;
    out.push(rec);
    at += 4 + len;
  }
  return out;
}

function decodeBody(body: Buffer): JournalRecord | undefined {
  if (!body.length) return undefined;
  switch (body[0]) {
    case OPEN:
      if (body.length !== 49) return undefined;
      return {
        k: 'open',
        number: body.readBigUInt64BE(1),
        parentHash: new Uint8Array(body.subarray(9, 41)),
        timestamp: body.readBigUInt64BE(41),
      };
    case TXS: {
      if (body.length < 5) return undefined;
      const txs: Uint8Array[] = [];
      let at = 5;
      while (at < body.length) {
        if (at + 4 > body.length) return undefined;
        const n = body.readUInt32BE(at);
        if (at + 4 + n > body.length) return undefined;
        txs.push(new Uint8Array(body.subarray(at + 4, at + 4 + n)));
        at += 4 + n;
      }
      return { k: 'txs', index: body.readUInt32BE(1), txs };
    }
    case VOID:
      return body.length === 5 ? { k: 'void', index: body.readUInt32BE(1) } : undefined;
    case RESET:
      return body.length === 1 ? { k: 'reset' } : undefined;
    case JSON_BODY:
      return fromJson(body);
    default:
      return undefined;
  }
}

/** A record of the JSON format (journals written before decision 0420). */
function fromJson(body: Buffer): JournalRecord | undefined {
  let r: any;
  try {
    r = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (r?.k === 'open')
    return {
      k: 'open',
      number: BigInt(r.number),
      parentHash: hexToBytes(r.parentHash),
      timestamp: BigInt(r.timestamp),
    };
  if (r?.k === 'txs') return { k: 'txs', index: r.index, txs: (r.txs as string[]).map(hexToBytes) };
  if (r?.k === 'void') return { k: 'void', index: r.index };
  return undefined;
}

/** The JSON record of the format before decision 0420 (tests: an old journal is still read). */
export function encodeJsonRecord(rec: JournalRecord): Buffer {
  const json =
    rec.k === 'open'
      ? {
          k: 'open',
          number: rec.number.toString(),
          parentHash: bytesToHex(rec.parentHash),
          timestamp: rec.timestamp.toString(),
        }
      : rec.k === 'txs'
        ? { k: 'txs', index: rec.index, txs: rec.txs.map(bytesToHex) }
        : rec;
  const body = Buffer.from(JSON.stringify(json), 'utf8');
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/**
 * The transactions of one block's records (a JournalRange's bytes), in order, as views into
 * `bytes`: an opening record, then flashblocks (a void record takes back the flashblock appended
 * just before it). Undefined if the bytes are anything else: torn, another record kind, a second
 * opening.
 */
export function blockTxsOf(bytes: Uint8Array): Uint8Array[] | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const flashblocks: { index: number; txs: Uint8Array[] }[] = [];
  let at = 0;
  let opened = false;
  while (at < b.length) {
    if (at + 5 > b.length) return undefined;
    const len = b.readUInt32BE(at);
    const end = at + 4 + len;
    if (len < 1 || end > b.length) return undefined;
    const kind = b[at + 4];
    if (!opened) {
      if (kind !== OPEN || len !== 49) return undefined;
      opened = true;
    } else if (kind === TXS && len >= 5) {
      const txs: Uint8Array[] = [];
      for (let t = at + 9; t < end; ) {
        if (t + 4 > end) return undefined;
        const n = b.readUInt32BE(t);
        if (t + 4 + n > end) return undefined;
        txs.push(bytes.subarray(t + 4, t + 4 + n));
        t += 4 + n;
      }
      flashblocks.push({ index: b.readUInt32BE(at + 5), txs });
    } else if (kind === VOID && len === 5) {
      const index = b.readUInt32BE(at + 5);
      while (flashblocks.at(-1)?.index === index) flashblocks.pop();
    } else return undefined;
    at = end;
  }
  return opened ? flashblocks.flatMap((f) => f.txs) : undefined;
}
