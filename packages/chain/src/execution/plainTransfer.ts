/**
 * Plain value transfers applied without the EVM: a transaction with no data and no access list,
 * to an account without code that is not a precompile, runs no code in any client. runTx still
 * costs a lot for one (fee checks through the Common, a Proxy'd transaction, an EVM frame,
 * journals): docs/decisions/0049-plain-transfers-without-the-evm.md.
 *
 * The accounts end as runTx leaves them, written in runTx's order through the overlay's own
 * putAccount/deleteAccount (their synchronous forms), so the overlay's diff (and so the state
 * root, the flashblock's changed accounts) is the same:
 *   sender: gas bought at the effective price, nonce + 1, value out, unused gas back;
 *   recipient: value in (touched even by 0); coinbase: the tip;
 *   EIP-161: a touched account left empty is deleted (a recipient of 0, a coinbase without tips).
 * It covers the forks whose transfer rules it knows (London up to Amsterdam, no extra EIPs,
 * not clique). Whatever it does not cover, and every transfer that would fail (nonce, funds,
 * fee below the base fee), returns undefined without a write: runTx runs it and says why.
 * `test/plain-transfer.test.ts` runs both on the same cases and compares every write.
 */
import { type Common, ConsensusType } from '@ethereumjs/common';
import type { BlockHeader } from '@ethereumjs/block';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { Account, KECCAK256_NULL } from '@ethereumjs/util';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import { copyAccount } from '../state/flatState.js';
import type { JournaledState } from '../state/journaledState.js';
import { encodeReceipt, type StoredReceipt } from '../storage/receiptCodec.js';
import { isPrecompile } from './precompiles.js';

const MAX_UINT256 = (1n << 256n) - 1n;
/**
 * The bloom of every plain transfer's receipt (no logs), one shared array: a receipt's bloom is
 * only read (the header's bloom, the encoders, RPC views). Its own 256 bytes per transfer lived
 * until the seal, copied by the scavenges (docs/perf/2026-11-27-ingest-late.md).
 */
const NO_LOGS_BLOOM = new Uint8Array(256);
/** G_transaction, the gas of a transfer (unchanged since Frontier). */
const TX_GAS = 21_000n;
/** EIP-7825 (Osaka): no transaction may have a larger gas limit. */
const TX_GAS_CAP = 1n << 24n;

export interface PlainTransferResult {
  /** Gas the transaction used (runTx's totalGasSpent). */
  totalGasSpent: bigint;
  receipt: StoredReceipt;
  /** The receipt's consensus encoding. */
  encodedReceipt: Uint8Array;
}

/**
 * What the plain-transfer path reads of a transaction: the pool's decoded fields have them
 * (a pooled transaction executes without its @ethereumjs/tx object), `transferFields` reads them
 * off such an object.
 */
export interface TransferFields {
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559; above: never a plain transfer here. */
  readonly type: number;
  /** Undefined: contract creation. */
  readonly to: Uint8Array | undefined;
  readonly data: Uint8Array;
  /** Entries of the access list (0 for legacy). */
  readonly accessListAddresses: number;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly value: bigint;
  /** Legacy/2930: the gas price; 1559: maxFeePerGas. */
  readonly maxFeePerGas: bigint;
  /** Legacy/2930: the gas price; 1559: maxPriorityFeePerGas. */
  readonly maxPriorityFeePerGas: bigint;
}

/** A transaction object's TransferFields. */
export function transferFields(tx: TypedTransaction): TransferFields {
  const fees = tx.supports(Capability.EIP1559FeeMarket)
    ? (tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint })
    : {
        maxFeePerGas: (tx as { gasPrice: bigint }).gasPrice,
        maxPriorityFeePerGas: (tx as { gasPrice: bigint }).gasPrice,
      };
  return {
    type: tx.type,
    to: tx.to?.bytes,
    data: tx.data,
    accessListAddresses: tx.supports(Capability.EIP2930AccessLists)
      ? (tx as { accessList: unknown[] }).accessList.length
      : 0,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    value: tx.value,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  };
}

export class PlainTransfers {
  private readonly coinbase: Uint8Array;
  private readonly coinbaseKey: string;
  private readonly baseFee: bigint;
  /** EIP-7825's per-transaction gas cap, where it is active. */
  private readonly gasCap?: bigint;

  private constructor(
    private readonly common: Common,
    header: BlockHeader,
  ) {
    this.coinbase = header.coinbase.bytes;
    this.coinbaseKey = bytesToHex(this.coinbase);
    this.baseFee = header.baseFeePerGas ?? 0n;
    if (common.isActivatedEIP(7825)) this.gasCap = TX_GAS_CAP;
  }

  /** For a block with this header and Common (set to its fork), or undefined if its fork is not covered. */
  static for(common: Common, header: BlockHeader): PlainTransfers | undefined {
    const covered =
      common.gteHardfork('london') &&
      !common.gteHardfork('amsterdam') &&
      common.eips().length === 0 &&
      common.consensusType() !== ConsensusType.ProofOfAuthority;
    return covered ? new PlainTransfers(common, header) : undefined;
  }

  /** Applies `tx`, sent by `sender`, after `blockGasUsed` gas of the block; undefined: run it through runTx. */
  async apply(
    state: JournaledState,
    tx: TransferFields,
    sender: Uint8Array,
    blockGasUsed: bigint,
  ): Promise<PlainTransferResult | undefined> {
    const to = tx.to;
    if (tx.type > 2 || tx.data.length !== 0 || to === undefined || tx.accessListAddresses !== 0)
      return undefined;
    const { gasLimit, value, maxFeePerGas, maxPriorityFeePerGas } = tx;
    if (gasLimit < TX_GAS || (this.gasCap !== undefined && gasLimit > this.gasCap)) return undefined;
    const baseFee = this.baseFee;
    // What the sender pays per gas, what the coinbase gets of it, what the balance must cover.
    // A legacy or EIP-2930 transaction's gas price is both of its fee fields: the same sums then
    // give its price, `gasPrice - baseFee` as the tip and `value + gasLimit * gasPrice`.
    if (maxFeePerGas < baseFee) return undefined;
    const tip = maxPriorityFeePerGas < maxFeePerGas - baseFee ? maxPriorityFeePerGas : maxFeePerGas - baseFee;
    const gasPrice = baseFee + tip;
    const maxCost = value + gasLimit * maxFeePerGas;
    if (isPrecompile(to, this.common)) return undefined;
    const fromKey = bytesToHex(sender);
    const toKey = bytesToHex(to);
    const fromAccount = await state.readAccountKeyed(fromKey, sender);
    if (
      fromAccount === undefined ||
      fromAccount.nonce !== tx.nonce ||
      fromAccount.balance < maxCost ||
      !equalBytes(fromAccount.codeHash, KECCAK256_NULL)
    )
      return undefined;
    const toAccount = toKey === fromKey ? fromAccount : await state.readAccountKeyed(toKey, to);
    if (toAccount && !equalBytes(toAccount.codeHash, KECCAK256_NULL)) return undefined;
    const coinbaseKey = this.coinbaseKey;
    const coinbaseAccount =
      coinbaseKey === fromKey || coinbaseKey === toKey
        ? undefined
        : await state.readAccountKeyed(coinbaseKey, this.coinbase);

    // The accounts as runTx leaves them (one object per distinct address, so aliases add up).
    const gasUsed = TX_GAS;
    const from = copyAccount(fromAccount);
    from.balance -= gasLimit * gasPrice + value; // gas bought, value out
    from.nonce += 1n;
    const recipient = toKey === fromKey ? from : toAccount ? copyAccount(toAccount) : new Account();
    recipient.balance += value;
    if (recipient.balance > MAX_UINT256) return undefined;
    from.balance += (gasLimit - gasUsed) * gasPrice; // unused gas back
    const coinbase =
      coinbaseKey === fromKey
        ? from
        : coinbaseKey === toKey
          ? recipient
          : coinbaseAccount
            ? copyAccount(coinbaseAccount)
            : new Account();
    coinbase.balance += gasUsed * tip;
    // Written in runTx's order (sender, recipient, coinbase: the order of the overlay's diff);
    // EIP-161: touched and left empty means deleted (a recipient of 0, a coinbase without tips).
    state.writeAccount(sender, from);
    if (recipient !== from) writeOrRemove(state, to, recipient);
    if (coinbase !== from && coinbase !== recipient) writeOrRemove(state, this.coinbase, coinbase);
    const receipt: StoredReceipt = {
      type: tx.type,
      status: 1,
      cumulativeGasUsed: blockGasUsed + gasUsed,
      bloom: NO_LOGS_BLOOM,
      logs: [],
    };
    return { totalGasSpent: gasUsed, receipt, encodedReceipt: encodeReceipt(receipt) };
  }
}

function writeOrRemove(state: JournaledState, address: Uint8Array, account: Account): void {
  if (account.isEmpty()) state.removeAccount(address);
  else state.writeAccount(address, account);
}
