import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { buildTransaction, type DecodedTransaction } from './decode.js';
import { hexToBytes } from '../primitives/hex.js';
import { decodeRlpViews } from './rlpViews.js';
import type { Hex, PoolTransaction } from './types.js';

/**
 * A pooled transaction. `tx` (the @ethereumjs/tx object) is built on first read: building it
 * copies the Common, which costs more than recovering the sender, and most readers (RPC views,
 * ordering, the builder's plain transfers: the fields below) never need it. Its fields were
 * validated on admission, so building cannot fail.
 * A blob transaction's `tx` is built from its body alone (hash, fields, versioned hashes).
 */
export class PooledTransaction implements PoolTransaction {
  readonly raw: Uint8Array;
  readonly nonce: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerBlobGas?: bigint;
  readonly gasLimit: bigint;
  readonly type: DecodedTransaction['type'];
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessListAddresses: number;
  readonly #signed: Uint8Array;
  #tx: TypedTransaction | undefined;

  constructor(
    readonly hash: Hex,
    decoded: DecodedTransaction,
    readonly sender: Hex,
    readonly receivedAt: number,
    private readonly common: Common,
  ) {
    this.raw = decoded.raw;
    this.#signed = decoded.signed;
    this.nonce = decoded.nonce;
    this.maxFeePerGas = decoded.maxFeePerGas;
    this.maxPriorityFeePerGas = decoded.maxPriorityFeePerGas;
    if (decoded.blob !== undefined) this.maxFeePerBlobGas = decoded.blob.maxFeePerBlobGas;
    this.gasLimit = decoded.gasLimit;
    this.type = decoded.type;
    this.to = decoded.to;
    this.value = decoded.value;
    this.data = decoded.data;
    this.accessListAddresses = decoded.accessListAddresses;
  }

  get tx(): TypedTransaction {
    if (this.#tx === undefined) {
      // The fields' views are cut from the bytes again (~1 µs) rather than kept from admission:
      // held for every pooled transaction until its block is sealed they were ~1 KB each that
      // every scavenge copied, for an object the builder's plain transfers never build (0501).
      const s = this.#signed;
      const values = s[0] === 3 ? undefined : decodeRlpViews(s[0] > 0x7f ? s : s.subarray(1));
      this.#tx = buildTransaction(
        s,
        this.common,
        values as DecodedTransaction['values'],
        hexToBytes(this.hash),
      );
    }
    return this.#tx;
  }
}
