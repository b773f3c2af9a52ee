/**
 * Blob transactions (EIP-4844, type 0x03), accepted only on chains that carry blobs: a chain
 * imported from a geth genesis whose forks reach Cancun (its Common has a KZG implementation in
 * `customCrypto.kzg`). wharf's own chain is OP-style and takes no blobs: its Common has no KZG,
 * and type 0x03 is refused there with `transaction type not supported`.
 *
 * A blob transaction arrives in its network form, the sidecar beside the signed body:
 *
 *   EIP-4844 (Cancun, Prague):  0x03 || rlp([body, blobs, commitments, proofs])       one proof per blob
 *   EIP-7594 (Osaka onwards):   0x03 || rlp([body, 1, blobs, commitments, cell_proofs])  128 per blob
 *
 * The hash (and what a block would commit to) is keccak256(0x03 || rlp(body)): the sidecar is not
 * part of it. Checks, in geth's order (core/txpool/validation.go validateBlobTx): sidecar present,
 * sidecar version of the active fork, blob fee cap >= 1 wei, at least one blob, at most the fork's
 * blobs per transaction, one blob and one commitment per versioned hash, each versioned hash =
 * 0x01 || sha256(commitment)[1:], the number of proofs; then the blob fee cap against the blob base
 * fee of the block being built (as geth's execution does; this pool checks it on admission, as it
 * does the base fee); then the KZG proofs, last because they cost the most.
 */
import type { Common } from '@ethereumjs/common';
import type { KZG } from '@ethereumjs/util';
import { sha256 } from '@noble/hashes/sha2.js';
import { poolError, poolErrorText } from './errors.js';
import type { Hex } from './types.js';

type Values = Array<Uint8Array | Values>;

/** 4096 field elements of 32 bytes. */
export const BLOB_SIZE = 131072;
/** EIP-4844 GAS_PER_BLOB (2^17; no fork has changed it, BPO forks change only the counts). */
export const GAS_PER_BLOB = 131072n;
/** A KZG commitment or proof: a compressed BLS12-381 G1 point. */
const KZG_POINT_SIZE = 48;
/** EIP-7594: cell proofs per blob. */
export const CELL_PROOFS_PER_BLOB = 128;
/** geth's blob pool txMaxSize: the whole network form, sidecar included. */
export const BLOB_TX_MAX_SIZE = 1024 * 1024;
/** EIP-4844 MIN_BASE_FEE_PER_BLOB_GAS (geth's blobTxMinBlobGasPrice). */
const MIN_BLOB_GAS_PRICE = 1n;
const VERSIONED_HASH_VERSION_KZG = 0x01;

export interface BlobSidecar {
  /** 0: EIP-4844 (one proof per blob); 1: EIP-7594 (128 cell proofs per blob). */
  version: number;
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  proofs: Uint8Array[];
}

/** The blob fields of a decoded type-3 transaction. */
export interface BlobFields {
  maxFeePerBlobGas: bigint;
  versionedHashes: Uint8Array[];
  /** Undefined when the transaction came in its canonical form, without blobs (refused). */
  sidecar: BlobSidecar | undefined;
}

/** What the pool's chain allows for blob transactions, read once from its Common. */
export interface BlobRules {
  kzg: KZG;
  /** The sidecar version the active fork wants: 1 from Osaka (EIP-7594), else 0. */
  sidecarVersion: 0 | 1;
  /** The active fork's blob schedule max per block; from Osaka also EIP-7594's 6 per transaction. */
  maxBlobsPerTx: number;
}

/** Whether the chain takes blob transactions: the rules, or the detail of the refusal. */
export type BlobSupport = { accepted: true; rules: BlobRules } | { accepted: false; refusal: string };

export const NO_BLOBS: BlobSupport = { accepted: false, refusal: 'tx type 3 not supported by this pool' };

export function blobSupportOf(common: Common): BlobSupport {
  const kzg = common.customCrypto?.kzg;
  if (kzg === undefined) return NO_BLOBS;
  if (!common.isActivatedEIP(4844)) {
    return { accepted: false, refusal: 'type 3 rejected, pool not yet in Cancun' };
  }
  let maxBlobsPerTx = Number(common.getBlobGasSchedule().maxBlobGasPerBlock / GAS_PER_BLOB);
  const osaka = common.isActivatedEIP(7594);
  if (osaka) maxBlobsPerTx = Math.min(maxBlobsPerTx, Number(common.param('maxBlobsPerTx')));
  return { accepted: true, rules: { kzg, sidecarVersion: osaka ? 1 : 0, maxBlobsPerTx } };
}

/** The blob gas a blob transaction uses (and pays maxFeePerBlobGas for, at most). */
export function blobGas(blob: BlobFields): bigint {
  return BigInt(blob.versionedHashes.length) * GAS_PER_BLOB;
}

/**
 * Splits a type-3 transaction into its signed body and its sidecar: `decoded` is the RLP after
 * the type byte, decoded; `raw` the whole submission. Returns the body's values, the bytes the
 * hash covers (0x03 || rlp(body), sliced from `raw`) and the sidecar (undefined for the canonical
 * form). Throws TxPoolError `rlp: ...` or `unsupported blob tx version N`.
 */
export function splitBlobEnvelope(
  decoded: Uint8Array | Values,
  raw: Uint8Array,
): { body: Uint8Array | Values; signed: Uint8Array; sidecar: BlobSidecar | undefined } {
  // The canonical form is the body itself (its first field, the chain id, is a string).
  if (!Array.isArray(decoded) || decoded.length === 0 || !Array.isArray(decoded[0])) {
    return { body: decoded, signed: raw, sidecar: undefined };
  }
  const withVersion = decoded.length > 1 && !Array.isArray(decoded[1]);
  const name = withVersion ? 'blobTxWithBlobsV1' : 'blobTxWithBlobsV0';
  const want = withVersion ? 5 : 4;
  if (decoded.length < want) throw poolError('rlp', `too few elements for types.${name}`);
  if (decoded.length > want) throw poolError('rlp', `input list has too many elements for types.${name}`);
  let version = 0;
  if (withVersion) {
    const v = decoded[1] as Uint8Array;
    if (v.length > 1)
      throw poolError('rlp', `input string too long for uint8, decoding into (types.${name}).Version`);
    if (v.length === 1 && v[0] === 0) {
      throw poolError('rlp', `non-canonical integer (leading zero bytes) for types.${name}.Version`);
    }
    version = v.length === 0 ? 0 : v[0];
    if (version !== 1) throw poolErrorText('blobTxVersion', version);
  }
  const at = withVersion ? 2 : 1;
  const sidecar: BlobSidecar = {
    version,
    blobs: fixedSizeList(decoded[at], BLOB_SIZE, 'kzg4844.Blob', `types.${name}`, 'Blobs'),
    commitments: fixedSizeList(
      decoded[at + 1],
      KZG_POINT_SIZE,
      'kzg4844.Commitment',
      `types.${name}`,
      'Commitments',
    ),
    proofs: fixedSizeList(decoded[at + 2], KZG_POINT_SIZE, 'kzg4844.Proof', `types.${name}`, 'Proofs'),
  };
  const payload = raw.subarray(1);
  const start = listHeaderLength(payload);
  const signed = new Uint8Array(1 + itemLength(payload, start));
  signed[0] = 0x03;
  signed.set(payload.subarray(start, start + signed.length - 1), 1);
  return { body: decoded[0], signed, sidecar };
}

function fixedSizeList(
  value: Uint8Array | Values,
  size: number,
  goType: string,
  name: string,
  field: string,
): Uint8Array[] {
  if (!Array.isArray(value)) throw poolError('rlp', `expected input list for ${name}.${field}`);
  for (const item of value) {
    if (Array.isArray(item)) throw poolError('rlp', `expected input string or byte for ${name}.${field}`);
    if (item.length !== size) {
      const how = item.length < size ? 'short' : 'long';
      throw poolError('rlp', `input string too ${how} for ${goType}, decoding into (${name}).${field}`);
    }
  }
  return value as Uint8Array[];
}

/** Bytes of an RLP list header at the start of `b` (the list was decoded already: well formed). */
function listHeaderLength(b: Uint8Array): number {
  return b[0] <= 0xf7 ? 1 : 1 + (b[0] - 0xf7);
}

/** Total bytes (header and content) of the RLP item at `at`. */
function itemLength(b: Uint8Array, at: number): number {
  const p = b[at];
  if (p < 0x80) return 1;
  if (p <= 0xb7) return 1 + p - 0x80;
  if (p < 0xc0) return 1 + (p - 0xb7) + readLength(b, at + 1, p - 0xb7);
  if (p <= 0xf7) return 1 + p - 0xc0;
  return 1 + (p - 0xf7) + readLength(b, at + 1, p - 0xf7);
}

function readLength(b: Uint8Array, at: number, bytes: number): number {
  let n = 0;
  for (let i = 0; i < bytes; i++) n = n * 256 + b[at + i];
  return n;
}

/** 0x01 || sha256(commitment)[1:] (EIP-4844 kzg_to_versioned_hash). */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  const h = sha256(commitment);
  h[0] = VERSIONED_HASH_VERSION_KZG;
  return h;
}

export interface BlobCheckContext {
  rules: BlobRules;
  /** Blob base fee of the block being built; undefined checks only the EIP-4844 minimum. */
  blobBaseFee: bigint | undefined;
  sender: Hex;
}

/** geth's validateBlobTx, then the blob base fee, then the KZG proofs. Throws TxPoolError. */
export function validateBlobTransaction(blob: BlobFields, ctx: BlobCheckContext): void {
  const { rules } = ctx;
  const sc = blob.sidecar;
  if (sc === undefined) throw poolError('missingSidecar');
  if (sc.version !== rules.sidecarVersion) {
    throw poolErrorText('sidecarVersion', rules.sidecarVersion, sc.version);
  }
  if (blob.maxFeePerBlobGas < MIN_BLOB_GAS_PRICE) {
    throw poolError(
      'underpriced',
      `blob fee cap ${blob.maxFeePerBlobGas}, minimum needed ${MIN_BLOB_GAS_PRICE}`,
    );
  }
  const hashes = blob.versionedHashes;
  const n = hashes.length;
  if (n === 0) throw poolError('blobless');
  if (n > rules.maxBlobsPerTx) {
    throw poolErrorText('tooManyBlobs', n, rules.maxBlobsPerTx);
  }
  if (sc.blobs.length !== n) {
    throw poolErrorText('blobCount', sc.blobs.length, n);
  }
  if (sc.commitments.length !== n) {
    throw poolErrorText('commitmentCount', sc.commitments.length, n);
  }
  for (let i = 0; i < n; i++) {
    const computed = versionedHash(sc.commitments[i]);
    if (!equalBytes(computed, hashes[i])) {
      throw poolErrorText('blobHashMismatch', i, toHex(computed), toHex(hashes[i]));
    }
  }
  const proofs = sc.version === 1 ? n * CELL_PROOFS_PER_BLOB : n;
  if (sc.proofs.length !== proofs) {
    throw poolErrorText('proofCount', sc.proofs.length, proofs);
  }
  if (ctx.blobBaseFee !== undefined && blob.maxFeePerBlobGas < ctx.blobBaseFee) {
    throw poolError(
      'blobFeeCapTooLow',
      `address ${ctx.sender} blobGasFeeCap: ${blob.maxFeePerBlobGas}, blobBaseFee: ${ctx.blobBaseFee}`,
    );
  }
  if (sc.version === 1) verifyCellProofs(rules.kzg, sc);
  else verifyBlobProofs(rules.kzg, sc);
}

/** EIP-4844 sidecar: each blob against its commitment and its one proof. */
function verifyBlobProofs(kzg: KZG, sc: BlobSidecar): void {
  for (let i = 0; i < sc.blobs.length; i++) {
    const why = attempt(() =>
      kzg.verifyBlobProofBatch([toHex(sc.blobs[i])], [toHex(sc.commitments[i])], [toHex(sc.proofs[i])]),
    );
    if (why !== undefined) throw poolError('kzg', `invalid blob proof: blob ${i}: ${why}`);
  }
}

/** EIP-7594 sidecar: every cell of every blob against its commitment and its cell proof, in one batch. */
function verifyCellProofs(kzg: KZG, sc: BlobSidecar): void {
  const commitments: string[] = [];
  const indices: number[] = [];
  const cells: string[] = [];
  const why = attempt(() => {
    for (let i = 0; i < sc.blobs.length; i++) {
      const commitment = toHex(sc.commitments[i]);
      const blobCells = kzg.computeCells(toHex(sc.blobs[i]));
      for (let c = 0; c < blobCells.length; c++) {
        commitments.push(commitment);
        indices.push(c);
        cells.push(blobCells[c]);
      }
    }
    return kzg.verifyCellKzgProofBatch(commitments, indices, cells, sc.proofs.map(toHex));
  });
  if (why !== undefined) throw poolError('kzg', why);
}

/** undefined when `verify` returns true; else why not (its error, or that the proof is wrong). */
function attempt(verify: () => boolean): string | undefined {
  try {
    return verify() ? undefined : 'proof does not verify';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function toHex(b: Uint8Array): Hex {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}
