/**
 * The block being built: an overlay over the latest sealed state that transactions are executed
 * into one by one (each runTx is its own checkpoint), and that `seal()` turns into a real block
 * with every root computed. Reads at `pending` see this overlay. Issue 5's flashblock loop
 * appends to it every 200 ms; the seal keeps exactly the executed transactions in order.
 */
import { Block, type BlockHeader, createBlock, createBlockHeader } from '@ethereumjs/block';
import { Address } from '@ethereumjs/util';
import type { TypedTransaction } from '@ethereumjs/tx';
import { encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import { keccak256 } from '../crypto/keccak.js';
import type { ChainContext } from '../execution/chainContext.js';
import { nextBaseFee } from '../execution/baseFee.js';
import { encodeBlock } from '../execution/blockEncoding.js';
import { commitBlock, rootOf } from '../execution/commitBlock.js';
import { createVm } from '../execution/vmFactory.js';
import { JournaledState } from '../state/journaledState.js';
import { decodeReceipt, type StoredReceipt } from '../storage/receiptCodec.js';
import { orderedTrieRoot } from '../trie/index.js';

export interface IncludedTx {
  tx: TypedTransaction;
  /** The signed encoding, as submitted. */
  raw: Uint8Array;
  hash: Uint8Array;
  sender: Uint8Array;
  receipt: StoredReceipt;
  encodedReceipt: Uint8Array;
  gasUsed: bigint;
}

export type AddOutcome = { ok: true; included: IncludedTx } | { ok: false; reason: string; retry: boolean };

export class PendingBlock {
  readonly state: JournaledState;
  readonly txs: IncludedTx[] = [];
  gasUsed = 0n;
  private vm?: VM;
  /** The header transactions execute against (roots are filled at seal). */
  readonly header: BlockHeader;
  private readonly execBlock: Block;

  constructor(
    private readonly ctx: ChainContext,
    readonly parent: Block,
    timestamp: bigint,
    extraData: Uint8Array,
  ) {
    this.state = new JournaledState(ctx.flat);
    const p = parent.header;
    const common = ctx.spec.common.copy();
    common.setHardforkBy({ blockNumber: p.number + 1n, timestamp });
    this.execBlock = createBlock(
      {
        header: {
          parentHash: parent.hash(),
          number: p.number + 1n,
          timestamp,
          gasLimit: p.gasLimit,
          coinbase: new Uint8Array(20),
          // prevRandao: deterministic but changing per block.
          mixHash: keccak256(parent.hash()),
          difficulty: 0n,
          extraData,
          baseFeePerGas: nextBaseFee(p, ctx.spec.baseFee),
          excessBlobGas: 0n,
          blobGasUsed: 0n,
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    this.header = this.execBlock.header;
  }

  get number(): bigint {
    return this.header.number;
  }
  get baseFee(): bigint {
    return this.header.baseFeePerGas ?? 0n;
  }

  /**
   * Executes one transaction into the block, or reports why it cannot go in. `known` carries
   * what the pool already established (encoding, recovered sender), saving a second recovery.
   */
  async add(
    tx: TypedTransaction,
    known?: { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array },
  ): Promise<AddOutcome> {
    if (this.gasUsed + tx.gasLimit > this.header.gasLimit)
      return { ok: false, reason: 'block gas limit reached', retry: true };
    this.vm ??= await createVm(this.ctx.spec.common, this.state, this.ctx.blocks, {
      number: this.header.number,
      timestamp: this.header.timestamp,
    });
    try {
      const r = await runTx(this.vm, {
        tx: known ? withKnownSender(tx, new Address(known.sender)) : tx,
        block: this.execBlock,
        blockGasUsed: this.gasUsed,
        skipHardForkValidation: true,
      });
      this.gasUsed += r.totalGasSpent;
      const encodedReceipt = encodeReceipt(r.receipt, tx.type);
      const included: IncludedTx = {
        tx,
        raw: known?.raw ?? tx.serialize(),
        hash: known?.hash ?? tx.hash(),
        sender: known?.sender ?? tx.getSenderAddress().bytes,
        receipt: decodeReceipt(encodedReceipt),
        encodedReceipt,
        gasUsed: r.totalGasSpent,
      };
      this.txs.push(included);
      return { ok: true, included };
    } catch (e) {
      return { ok: false, reason: (e as Error).message.split(' (block=')[0], retry: false };
    }
  }

  /** Computes every root, writes the block atomically and returns it. */
  async seal(): Promise<{ block: Block; txs: IncludedTx[] }> {
    const root = await rootOf(this.ctx, this.parent.header.stateRoot, this.ctx.flat, this.state.diff());
    const bloom = new Uint8Array(256);
    for (const t of this.txs) for (let i = 0; i < 256; i++) bloom[i] |= t.receipt.bloom[i];
    const h = this.header;
    const raws = this.txs.map((t) => t.raw);
    const header = createBlockHeader(
      {
        ...h.toJSON(),
        stateRoot: root.root,
        transactionsTrie: orderedTrieRoot(raws),
        receiptTrie: orderedTrieRoot(this.txs.map((t) => t.encodedReceipt)),
        logsBloom: bloom,
        gasUsed: this.gasUsed,
      },
      { common: h.common, skipConsensusFormatValidation: true },
    );
    // The Block constructor keeps the executed transaction objects (createBlock rebuilds them).
    const block = new Block(
      header,
      this.txs.map((t) => t.tx),
      [],
      [],
      { common: h.common },
    );
    const rlp = encodeBlock(header.raw(), raws, true);
    await commitBlock(
      this.ctx,
      { block, rlp, receipts: this.txs.map((t) => t.encodedReceipt), senders: this.txs.map((t) => t.sender) },
      this.state,
      root,
    );
    return { block, txs: this.txs };
  }
}

/**
 * The pool verified the signature and recovered the sender: runTx asks the transaction again
 * (a second secp256k1 recovery, ~a third of execution time). A view of the frozen transaction
 * that answers getSenderAddress from what we know.
 */
function withKnownSender(tx: TypedTransaction, sender: Address): TypedTransaction {
  return new Proxy(tx, {
    get(target, key, receiver) {
      if (key === 'getSenderAddress') return () => sender;
      return Reflect.get(target, key, receiver);
    },
  });
}
