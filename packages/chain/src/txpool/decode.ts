/**
 * Raw transaction decoding: the pool's own RLP walk gives every field the validation needs (in
 * geth's order, before any expensive step); @ethereumjs/tx builds the transaction object and
 * recovers the sender (through `common.customCrypto.ecrecover`, native in the node).
 *
 * Accepted: legacy (0x00, EIP-155 or unprotected), EIP-2930 (0x01), EIP-1559 (0x02),
 * EIP-7702 (0x04). Refused: blob (0x03), deposit (0x7e) and every other type byte.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  createAccessList2930TxFromBytesArray,
  create1559FeeMarketTxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { poolError } from './errors.js';
import type { Hex, TxPoolError } from './types.js';

type Values = Array<Uint8Array | Values>;

/** The fields of a raw transaction that validation reads. */
export interface DecodedTransaction {
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559, 4 EIP-7702. */
  type: 0 | 1 | 2 | 4;
  raw: Uint8Array;
  /** The transaction's chain id; undefined for an unprotected (pre-EIP-155) legacy transaction. */
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
  /** A signature problem found while decoding (legacy `v` that is neither 27/28 nor EIP-155). */
  signatureError: string | undefined;
  /** The decoded RLP list (without the type byte), for @ethereumjs/tx's bytes-array constructors. */
  values: Values;
}

const FIELD_COUNT = { 0: 9, 1: 11, 2: 12, 4: 13 } as const;
const TYPE_NAME = { 0: 'LegacyTx', 1: 'AccessListTx', 2: 'DynamicFeeTx', 4: 'SetCodeTx' } as const;

/** Decodes the envelope and fields; throws TxPoolError (`rlp: ...`, `transaction type not supported`). */
export function decodeRawTransaction(raw: Uint8Array): DecodedTransaction {
  if (raw.length === 0 || (raw[0] <= 0x7f && raw.length <= 1)) throw poolError('shortTypedTx');
  let type: 0 | 1 | 2 | 4;
  let payload: Uint8Array;
  if (raw[0] > 0x7f) {
    type = 0;
    payload = raw;
  } else {
    const t = raw[0];
    if (t !== 1 && t !== 2 && t !== 4) {
      throw t === 3
        ? poolError('typeNotSupported', `tx type ${t} not supported by this pool`)
        : poolError('typeNotSupported');
    }
    type = t;
    payload = raw.subarray(1);
  }
  let decoded: Uint8Array | Values;
  try {
    decoded = RLP.decode(payload) as Uint8Array | Values;
  } catch (err) {
    throw poolError('rlp', (err as Error).message);
  }
  const name = TYPE_NAME[type];
  if (!Array.isArray(decoded)) throw poolError('rlp', `expected input list for types.${name}`);
  const want = FIELD_COUNT[type];
  if (decoded.length < want) throw poolError('rlp', `too few elements for types.${name}`);
  if (decoded.length > want) throw poolError('rlp', `input list has too many elements for types.${name}`);
  const f = new FieldReader(decoded, name);

  if (type === 0) {
    const nonce = f.uint(0, 8, 'Nonce');
    const gasPrice = f.uint(1, 32, 'GasPrice');
    const gasLimit = f.uint(2, 8, 'Gas');
    const to = f.to(3, true);
    const value = f.uint(4, 32, 'Value');
    const data = f.bytes(5, 'Data');
    const v = f.uint(6, 32, 'V');
    f.uint(7, 32, 'R');
    f.uint(8, 32, 'S');
    let chainId: bigint | undefined;
    let signatureError: string | undefined;
    if (v === 27n || v === 28n) chainId = undefined;
    else if (v >= 35n) chainId = (v - 35n) / 2n;
    else signatureError = 'invalid transaction v, r, s values';
    return {
      type,
      raw,
      chainId,
      nonce,
      gasLimit,
      maxFeePerGas: gasPrice,
      maxPriorityFeePerGas: gasPrice,
      value,
      to,
      data,
      accessListAddresses: 0,
      accessListStorageKeys: 0,
      authorizations: 0,
      signatureError,
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
  const to = f.to(i++, type !== 4);
  const value = f.uint(i++, 32, 'Value');
  const data = f.bytes(i++, 'Data');
  const [accessListAddresses, accessListStorageKeys] = f.accessList(i++);
  let authorizations = 0;
  if (type === 4) {
    const list = decoded[i++];
    if (!Array.isArray(list)) throw poolError('rlp', `expected input list for types.${name}.AuthList`);
    authorizations = list.length;
  }
  f.uint(i++, 1, 'V');
  f.uint(i++, 32, 'R');
  f.uint(i, 32, 'S');
  return {
    type,
    raw,
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
    signatureError: undefined,
    values: decoded,
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
    return bytesToBigInt(b);
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

  accessList(i: number): [addresses: number, storageKeys: number] {
    const list = this.values[i];
    if (!Array.isArray(list)) throw poolError('rlp', `expected input list for types.${this.name}.AccessList`);
    let keys = 0;
    for (const item of list) {
      if (!Array.isArray(item) || item.length !== 2 || !Array.isArray(item[1])) {
        throw poolError('rlp', `invalid access list entry in types.${this.name}.AccessList`);
      }
      keys += item[1].length;
    }
    return [list.length, keys];
  }
}

function bytesToBigInt(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  if (b.length <= 6) {
    let n = 0;
    for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
    return BigInt(n);
  }
  return BigInt(bytesToHex(b));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 0x-lowercase hex of `b`. */
export function bytesToHex(b: Uint8Array): Hex {
  let s = '0x';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s as Hex;
}

/**
 * Builds the @ethereumjs/tx object and recovers the sender (0x-lowercase). Throws TxPoolError
 * `invalid chain id for signer` or `invalid sender` (geth's Sender step).
 */
export function recoverTransaction(
  decoded: DecodedTransaction,
  common: Common,
): { tx: TypedTransaction; sender: Hex } {
  const want = common.chainId();
  if (decoded.signatureError !== undefined) throw poolError('invalidSender', decoded.signatureError);
  if (decoded.chainId !== undefined && decoded.chainId !== want) {
    throw poolError('invalidChainId', `have ${decoded.chainId} want ${want}`);
  }
  let tx: TypedTransaction;
  try {
    tx = buildTransaction(decoded, common);
  } catch (err) {
    throw constructionError(err);
  }
  try {
    return { tx, sender: tx.getSenderAddress().toString() as Hex };
  } catch (err) {
    throw poolError('invalidSender', cleanMessage(err));
  }
}

function buildTransaction(decoded: DecodedTransaction, common: Common): TypedTransaction {
  const opts = { common };
  const values = decoded.values as Uint8Array[];
  switch (decoded.type) {
    case 0:
      return createLegacyTxFromBytesArray(values, opts);
    case 1:
      return createAccessList2930TxFromBytesArray(values as never, opts);
    case 2:
      return create1559FeeMarketTxFromBytesArray(values as never, opts);
    case 4:
      return createEOACode7702TxFromBytesArray(values as never, opts);
  }
}

function constructionError(err: unknown): TxPoolError {
  const message = cleanMessage(err);
  if (/signature|s-value|parity|v value|EIP155/i.test(message)) return poolError('invalidSender', message);
  return poolError('rlp', message);
}

/** The @ethereumjs message without its "(tx type=... hash=...)" context suffix. */
function cleanMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cut = message.indexOf(' (tx type=');
  return cut >= 0 ? message.slice(0, cut) : message;
}
