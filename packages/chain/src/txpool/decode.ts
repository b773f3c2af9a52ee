/**
 * Raw transaction decoding and sender recovery. The pool's own RLP walk gives every field the
 * validation needs and checks what @ethereumjs/tx would refuse (canonical integers, field
 * lengths, authorization tuples, EIP-2 signature values), so that the @ethereumjs/tx object can
 * be built lazily, when the builder first reads it: building one copies the Common and costs
 * more than the native signature recovery itself. Recovery uses the same functions @ethereumjs
 * would (`common.customCrypto.ecrecover` / `keccak256`, native secp256k1 in the node).
 *
 * Accepted: legacy (0x00, EIP-155 or unprotected), EIP-2930 (0x01), EIP-1559 (0x02),
 * EIP-7702 (0x04), and blob (0x03) on a chain that carries blobs (blobs.ts; its network form with
 * the sidecar is split here). Refused: blob elsewhere, deposit (0x7e) and every other type byte.
 *
 * One file (over 400 lines): the RLP walk, its checks and the lazy build share one field layout per
 * transaction type; split apart, each would repeat that layout.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  createTxFromRLP,
  paramsTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { bytesToBigint, bytesToHex } from '../primitives/hex.js';
import { type BlobFields, type BlobSupport, NO_BLOBS, splitBlobEnvelope } from './blobs.js';
import { poolError } from './errors.js';
import { decodeRlpViews } from './rlpViews.js';
import type { SenderRecovery } from './recoveryThread.js';
import type { Hex } from './types.js';

type Values = Array<Uint8Array | Values>;

/** The fields of a raw transaction that validation reads. */
export interface DecodedTransaction {
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559, 3 EIP-4844 blob, 4 EIP-7702. */
  type: 0 | 1 | 2 | 3 | 4;
  /** As submitted (a blob transaction: its network form, with the sidecar). */
  raw: Uint8Array;
  /**
   * The signed transaction the hash covers and a block would hold: `raw`, except for a blob
   * transaction with its sidecar, whose is 0x03 || rlp(body).
   */
  signed: Uint8Array;
  /**
   * The transaction's chain id; undefined for an unprotected (pre-EIP-155) legacy transaction;
   * -1 for a legacy `v` that is neither 27/28 nor EIP-155 (refused at the sender step).
   */
  chainId: bigint | undefined;
  nonce: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  value: bigint;
  /** Undefined for contract creation. */
  to: Uint8Array | undefined;
  data: Uint8Array;
  accessListAddresses: number;
  accessListStorageKeys: number;
  authorizations: number;
  /** Legacy: v; typed: the y parity. */
  v: bigint;
  r: bigint;
  s: bigint;
  /** The decoded RLP list (without the type byte; a blob transaction's body). */
  values: Values;
  /** Blob transactions only. */
  blob?: BlobFields;
}

const FIELD_COUNT = { 0: 9, 1: 11, 2: 12, 3: 14, 4: 13 } as const;
const TYPE_NAME = {
  0: 'LegacyTx',
  1: 'AccessListTx',
  2: 'DynamicFeeTx',
  3: 'BlobTx',
  4: 'SetCodeTx',
} as const;

/**
 * Decodes the envelope and fields; throws TxPoolError (`rlp: ...`, `transaction type not
 * supported`). `blobs` says whether the chain takes blob transactions (default: it does not).
 */
export function decodeRawTransaction(raw: Uint8Array, blobs: BlobSupport = NO_BLOBS): DecodedTransaction {
  if (raw.length === 0 || (raw[0] <= 0x7f && raw.length <= 1)) throw poolError('shortTypedTx');
  let type: 0 | 1 | 2 | 3 | 4;
  let payload: Uint8Array;
  if (raw[0] > 0x7f) {
    type = 0;
    payload = raw;
  } else {
    const t = raw[0];
    if (t === 3 && !blobs.accepted) throw poolError('typeNotSupported', blobs.refusal);
    if (t !== 1 && t !== 2 && t !== 3 && t !== 4) throw poolError('typeNotSupported');
    type = t;
    payload = raw.subarray(1);
  }
  let decoded: Uint8Array | Values;
  try {
    decoded = decodeRlpViews(payload) as Uint8Array | Values;
  } catch (err) {
    throw poolError('rlp', (err as Error).message);
  }
  let signed = raw;
  let envelope: ReturnType<typeof splitBlobEnvelope> | undefined;
  if (type === 3) {
    envelope = splitBlobEnvelope(decoded, raw);
    decoded = envelope.body;
    signed = envelope.signed;
  }
  const name = TYPE_NAME[type];
  if (!Array.isArray(decoded)) throw poolError('rlp', `expected input list for types.${name}`);
  const want = FIELD_COUNT[type];
  if (decoded.length < want) throw poolError('rlp', `too few elements for types.${name}`);
  if (decoded.length > want) throw poolError('rlp', `input list has too many elements for types.${name}`);
  const f = new FieldReader(decoded, name);

  if (type === 0) {
    const gasPrice = f.uint(1, 32, 'GasPrice');
    const v = f.uint(6, 32, 'V');
    return {
      type,
      raw,
      signed,
      chainId: v === 27n || v === 28n ? undefined : v >= 35n ? (v - 35n) / 2n : -1n,
      nonce: f.uint(0, 8, 'Nonce'),
      gasLimit: f.uint(2, 8, 'Gas'),
      maxFeePerGas: gasPrice,
      maxPriorityFeePerGas: gasPrice,
      to: f.to(3, true),
      value: f.uint(4, 32, 'Value'),
      data: f.bytes(5, 'Data'),
      accessListAddresses: 0,
      accessListStorageKeys: 0,
      authorizations: 0,
      v,
      r: f.uint(7, 32, 'R'),
      s: f.uint(8, 32, 'S'),
      values: decoded,
    };
  }

  const chainId = f.uint(0, 32, 'ChainID');
  const nonce = f.uint(1, 8, 'Nonce');
  let i = 2;
  let maxPriorityFeePerGas: bigint;
  let maxFeePerGas: bigint;
  if (type === 1) {
    maxFeePerGas = maxPriorityFeePerGas = f.uint(i++, 32, 'GasPrice');
  } else {
    maxPriorityFeePerGas = f.uint(i++, 32, 'GasTipCap');
    maxFeePerGas = f.uint(i++, 32, 'GasFeeCap');
  }
  const gasLimit = f.uint(i++, 8, 'Gas');
  const to = f.to(i++, type !== 3 && type !== 4);
  const value = f.uint(i++, 32, 'Value');
  const data = f.bytes(i++, 'Data');
  const [accessListAddresses, accessListStorageKeys] = f.accessList(i++);
  const authorizations = type === 4 ? f.authorizationList(i++) : 0;
  let blob: BlobFields | undefined;
  if (type === 3) {
    const maxFeePerBlobGas = f.uint(i++, 32, 'BlobFeeCap');
    blob = { maxFeePerBlobGas, versionedHashes: f.hashes(i++, 'BlobHashes'), sidecar: envelope?.sidecar };
  }
  return {
    type,
    raw,
    signed,
    chainId,
    nonce,
    gasLimit,
    maxFeePerGas,
    maxPriorityFeePerGas,
    value,
    to,
    data,
    accessListAddresses,
    accessListStorageKeys,
    authorizations,
    v: f.uint(i++, 32, 'V'),
    r: f.uint(i++, 32, 'R'),
    s: f.uint(i, 32, 'S'),
    values: decoded,
    blob,
  };
}

class FieldReader {
  constructor(
    private readonly values: Values,
    private readonly name: string,
  ) {}

  bytes(i: number, field: string): Uint8Array {
    const v = this.values[i];
    if (Array.isArray(v)) {
      throw poolError('rlp', `expected input string or byte for types.${this.name}.${field}`);
    }
    return v;
  }

  uint(i: number, maxBytes: number, field: string): bigint {
    const b = this.bytes(i, field);
    if (b.length > maxBytes) {
      throw poolError(
        'rlp',
        `input string too long for uint${maxBytes * 8}, decoding into (types.${this.name}).${field}`,
      );
    }
    if (b.length > 0 && b[0] === 0) {
      throw poolError('rlp', `non-canonical integer (leading zero bytes) for types.${this.name}.${field}`);
    }
    return bytesToBigint(b);
  }

  to(i: number, mayCreate: boolean): Uint8Array | undefined {
    const b = this.bytes(i, 'To');
    if (b.length === 0 && mayCreate) return undefined;
    if (b.length !== 20) {
      throw poolError(
        'rlp',
        `input string too ${b.length < 20 ? 'short' : 'long'} for common.Address, decoding into (types.${this.name}).To`,
      );
    }
    return b;
  }

  /** A list of 32-byte hashes (a blob transaction's versioned hashes). */
  hashes(i: number, field: string): Uint8Array[] {
    const list = this.values[i];
    if (!Array.isArray(list)) throw poolError('rlp', `expected input list for types.${this.name}.${field}`);
    for (const h of list) {
      if (Array.isArray(h))
        throw poolError('rlp', `expected input string or byte for types.${this.name}.${field}`);
      if (h.length !== 32) {
        throw poolError(
          'rlp',
          `input string too ${h.length < 32 ? 'short' : 'long'} for common.Hash, decoding into (types.${this.name}).${field}`,
        );
      }
    }
    return list as Uint8Array[];
  }

  accessList(i: number): [addresses: number, storageKeys: number] {
    const list = this.values[i];
    if (!Array.isArray(list)) throw poolError('rlp', `expected input list for types.${this.name}.AccessList`);
    let keys = 0;
    for (const item of list) {
      if (
        !Array.isArray(item) ||
        item.length !== 2 ||
        Array.isArray(item[0]) ||
        item[0].length !== 20 ||
        !Array.isArray(item[1])
      ) {
        throw poolError('rlp', `invalid access tuple in types.${this.name}.AccessList`);
      }
      for (const key of item[1]) {
        if (Array.isArray(key) || key.length !== 32) {
          throw poolError('rlp', `invalid storage key in types.${this.name}.AccessList`);
        }
      }
      keys += item[1].length;
    }
    return [list.length, keys];
  }

  /** EIP-7702 tuples [chainId, address, nonce, yParity, r, s]; returns how many. */
  authorizationList(i: number): number {
    const list = this.values[i];
    if (!Array.isArray(list)) throw poolError('rlp', `expected input list for types.${this.name}.AuthList`);
    for (const item of list) {
      if (!Array.isArray(item) || item.length !== 6) {
        throw poolError('rlp', `invalid authorization tuple in types.${this.name}.AuthList`);
      }
      const tuple = new FieldReader(item, `${this.name}.AuthList`);
      tuple.uint(0, 32, 'ChainID');
      const address = tuple.bytes(1, 'Address');
      if (address.length !== 20) throw poolError('rlp', `invalid address in types.${this.name}.AuthList`);
      tuple.uint(2, 8, 'Nonce');
      tuple.uint(3, 1, 'V');
      tuple.uint(4, 32, 'R');
      tuple.uint(5, 32, 'S');
    }
    return list.length;
  }
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N / 2n;
const EMPTY = new Uint8Array();

export interface RecoveryCrypto {
  keccak256(data: Uint8Array): Uint8Array;
  /** @ethereumjs's customCrypto.ecrecover shape: the 64-byte public key. */
  ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array;
  /** The same recovery off the event loop (the node's worker thread); `ecrecover` when absent. */
  recovery?: SenderRecovery;
  /** See TxPoolConfig.impersonated. */
  impersonated?: (address: Hex) => boolean;
}

/** The `s` of an impersonated sender's transaction; its `r` is the sender's address. */
export const IMPERSONATED_S = 1n;

/**
 * geth's Sender step: chain id, signature values (EIP-2 low s), then recovery over the signing
 * hash. Resolves to the sender, 0x-lowercase. Throws TxPoolError `invalid chain id for signer` or
 * `invalid sender: invalid transaction v, r, s values` / `invalid sender: recovery failed`.
 * `started`: the public key's recovery begun ahead of this step (`startRecovery`), awaited in
 * its place; the checks before it run here all the same, in the same order.
 */
export async function recoverSender(
  decoded: DecodedTransaction,
  chainId: bigint,
  crypto: RecoveryCrypto,
  started?: Promise<Uint8Array>,
): Promise<Hex> {
  const { r, s } = decoded;
  if (decoded.chainId !== undefined && decoded.chainId !== chainId) {
    if (decoded.chainId < 0n) throw poolError('invalidSender', 'invalid transaction v, r, s values');
    throw poolError('invalidChainId', `have ${decoded.chainId} want ${chainId}`);
  }
  // A dev node's impersonated sender (anvil_impersonateAccount) signs nothing: r names it.
  if (crypto.impersonated && s === IMPERSONATED_S && r > 0n && r < 1n << 160n) {
    const address = `0x${r.toString(16).padStart(40, '0')}` as Hex;
    if (crypto.impersonated(address)) return address;
  }
  const parity = signatureParity(decoded, chainId);
  if (parity === undefined) throw poolError('invalidSender', 'invalid transaction v, r, s values');
  let publicKey: Uint8Array;
  try {
    const pending = started ?? recoverPublicKey(decoded, chainId, parity, crypto);
    crypto.recovery?.expedite?.(pending);
    publicKey = await pending;
  } catch {
    // No point has r as its x (or the key is at infinity): geth's secp256k1 ErrRecoverFailed.
    throw poolError('invalidSender', 'recovery failed');
  }
  if (publicKey.length === 65) publicKey = publicKey.subarray(1);
  return bytesToHex(crypto.keccak256(publicKey).subarray(12));
}

/**
 * Starts the recovery of the signer's public key, for `recoverSender` to await later (the
 * requests of a JSON-RPC batch: the worker thread recovers them back to back while the pool
 * checks the ones before). Undefined where there is nothing to start: no worker thread, or a
 * transaction `recoverSender` refuses before recovering. A failure is kept for `recoverSender`.
 */
export function startRecovery(
  decoded: DecodedTransaction,
  chainId: bigint,
  crypto: RecoveryCrypto,
): Promise<Uint8Array> | undefined {
  if (!crypto.recovery || (decoded.chainId !== undefined && decoded.chainId !== chainId)) return undefined;
  const parity = signatureParity(decoded, chainId);
  if (parity === undefined) return undefined;
  const started = recoverPublicKey(decoded, chainId, parity, crypto);
  started.catch(() => {}); // reported when awaited
  return started;
}

/** The recovery id, or undefined for signature values geth refuses (EIP-2 low s). */
function signatureParity(decoded: DecodedTransaction, chainId: bigint): 0 | 1 | undefined {
  const { type, v, r, s } = decoded;
  const parity = type !== 0 ? v : decoded.chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if ((parity !== 0n && parity !== 1n) || r === 0n || s === 0n || r >= SECP256K1_N || s > SECP256K1_HALF_N) {
    return undefined;
  }
  return parity === 0n ? 0 : 1;
}

/**
 * Recovers the signer's public key over the signing hash (on the worker thread when there is
 * one). Not async: with a worker, the promise is the worker's own, which `expedite` knows.
 */
function recoverPublicKey(
  decoded: DecodedTransaction,
  chainId: bigint,
  parity: 0 | 1,
  crypto: RecoveryCrypto,
): Promise<Uint8Array> {
  try {
    const values = decoded.values as Uint8Array[];
    const n = values.length;
    const msgHash = crypto.keccak256(signingPayload(decoded, chainId));
    return crypto.recovery
      ? crypto.recovery.recoverPublicKey(msgHash, parity, values[n - 2], values[n - 1])
      : Promise.resolve(crypto.ecrecover(msgHash, BigInt(parity), values[n - 2], values[n - 1]));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * What the signature signs: the fields before v, r, s (EIP-155: with the chain id, 0, 0), in a
 * list of their own. Cut from the submitted bytes, not encoded again: they are the list's content
 * up to v (every field decoded canonically, so each one's encoding is its length and a prefix).
 */
function signingPayload(decoded: DecodedTransaction, chainId: bigint): Uint8Array {
  const values = decoded.values as Uint8Array[];
  const n = values.length;
  if (decoded.type === 3) {
    // A blob transaction's body may come out of its network form: encoded again, as it is rare.
    const body = RLP.encode(values.slice(0, n - 3));
    const unsigned = new Uint8Array(body.length + 1);
    unsigned[0] = 3;
    unsigned.set(body, 1);
    return unsigned;
  }
  const list = decoded.type === 0 ? decoded.raw : decoded.raw.subarray(1);
  const contentStart = list[0] <= 0xf7 ? 1 : 1 + (list[0] - 0xf7);
  const fieldsEnd =
    list.length - encodedLength(values[n - 3]) - encodedLength(values[n - 2]) - encodedLength(values[n - 1]);
  const fields = list.subarray(contentStart, fieldsEnd);
  const prefix = decoded.type === 0 ? 0 : 1;
  const tail = decoded.type === 0 && decoded.chainId !== undefined ? chainIdTail(chainId) : EMPTY;
  const length = fields.length + tail.length;
  const header = listHeader(length);
  const out = new Uint8Array(prefix + header.length + length);
  if (prefix) out[0] = decoded.type;
  out.set(header, prefix);
  out.set(fields, prefix + header.length);
  out.set(tail, prefix + header.length + fields.length);
  return out;
}

/** A byte string's RLP length (at most 55 bytes long: v, r, s and the chain id are). */
function encodedLength(b: Uint8Array): number {
  return b.length === 1 && b[0] < 0x80 ? 1 : 1 + b.length;
}

/** The prefix of an RLP list with `length` bytes of content. */
function listHeader(length: number): Uint8Array {
  if (length < 56) return Uint8Array.of(0xc0 + length);
  const bytes: number[] = [];
  for (let l = length; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return Uint8Array.of(0xf7 + bytes.length, ...bytes);
}

let cachedTail: { id: bigint; bytes: Uint8Array } | undefined;

/** EIP-155's chain id, 0, 0 as they follow a legacy transaction's fields. */
function chainIdTail(id: bigint): Uint8Array {
  if (cachedTail?.id !== id) cachedTail = { id, bytes: RLP.encode([chainIdBytes(id), EMPTY, EMPTY]) };
  const list = cachedTail.bytes;
  return list.subarray(list[0] <= 0xf7 ? 1 : 1 + (list[0] - 0xf7));
}

let cachedChainId: { id: bigint; bytes: Uint8Array } | undefined;

/** The chain id as minimal big-endian bytes (EIP-155 signing payload). */
function chainIdBytes(id: bigint): Uint8Array {
  if (cachedChainId?.id !== id) {
    let hex = id.toString(16);
    if (hex.length % 2 === 1) hex = `0${hex}`;
    const bytes = id === 0n ? EMPTY : Uint8Array.from(Buffer.from(hex, 'hex'));
    cachedChainId = { id, bytes };
  }
  return cachedChainId.bytes;
}

/**
 * The @ethereumjs/tx object for an accepted transaction's `signed` bytes (validated by the pool
 * already; a blob transaction's is its body, without the sidecar). `values`: its fields as the
 * pool decoded them, so that they are not decoded again; `hash`: its hash, so that `tx.hash()`
 * does not encode and hash it again.
 */
export function buildTransaction(
  signed: Uint8Array,
  common: Common,
  values?: Values,
  hash?: Uint8Array,
): TypedTransaction {
  const opts = { common: sharedTxCommon(common) };
  const fields = values as Uint8Array[];
  let tx: TypedTransaction;
  if (values === undefined || signed[0] === 3) tx = createTxFromRLP(signed, opts) as TypedTransaction;
  else if (signed[0] > 0x7f) tx = createLegacyTxFromBytesArray(fields, opts);
  else if (signed[0] === 1) tx = createAccessList2930TxFromBytesArray(fields as never, opts);
  else if (signed[0] === 2) tx = create1559FeeMarketTxFromBytesArray(fields as never, opts);
  else tx = createEOACode7702TxFromBytesArray(fields as never, opts);
  // The object is frozen, its cache is not: what hash() would compute (keccak of the encoding).
  if (hash !== undefined) (tx.cache as { hash?: Uint8Array }).hash = hash;
  return tx;
}

const txCommons = new WeakMap<Common, Common>();

/**
 * One Common for every transaction built against `common`, as it is now. @ethereumjs/tx copies
 * the Common it is given and merges its parameters into the copy (a JSON round trip per EIP),
 * most of building a transaction (docs/decisions/0017-shared-common-for-builder-transactions.md).
 * Nothing a transaction does changes its Common (its hardfork is fixed, and
 * runTx reads the VM's own), so they can share one whose `copy` returns itself.
 */
export function sharedTxCommon(common: Common): Common {
  let shared = txCommons.get(common);
  if (!shared) {
    const c = common.copy();
    c.updateParams(paramsTx);
    // What the transaction constructor calls on the Common it is given: both become no-ops.
    c.copy = () => c;
    c.updateParams = () => {};
    txCommons.set(common, c);
    shared = c;
  }
  return shared;
}
