/**
 * The sequencer's raw transactions (a flashblock's, a sealed block's) as the follower executes
 * them: decoded and their senders recovered the way the pool does (txpool/decode.ts), the
 * recovery on the node's worker thread, so that a flashblock of 200 transfers does not hold the
 * event loop for their signatures.
 */
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { FollowedTx } from '../builder/followedBlocks.js';
import { keccak256 } from '../crypto/keccak.js';
import { hexToBytes } from '../primitives/hex.js';
import { type BlobSupport, blobSupportOf } from '../txpool/blobs.js';
import { buildTransaction, decodeRawTransaction, recoverSender } from '../txpool/decode.js';
import { nativeEcrecover } from '../txpool/nativeEcrecover.js';
import type { SenderRecovery } from '../txpool/recoveryThread.js';

export class FollowedTxDecoder {
  private readonly chainId: bigint;
  private readonly blobs: BlobSupport;

  constructor(
    private readonly common: Common,
    private readonly recovery?: SenderRecovery,
  ) {
    this.chainId = common.chainId();
    this.blobs = blobSupportOf(common);
  }

  /** One signed transaction; throws naming what is wrong with it. */
  async decode(raw: Uint8Array): Promise<FollowedTx> {
    const decoded = decodeRawTransaction(raw, this.blobs);
    const sender = await recoverSender(decoded, this.chainId, {
      keccak256,
      ecrecover: nativeEcrecover,
      recovery: this.recovery,
    });
    return {
      tx: buildTransaction(decoded.signed, this.common),
      raw: decoded.signed,
      hash: keccak256(decoded.signed),
      sender: hexToBytes(sender),
    };
  }

  decodeAll(raws: readonly Uint8Array[]): Promise<FollowedTx[]> {
    return Promise.all(raws.map((r) => this.decode(r)));
  }

  /** A sealed block's transactions (built already) with their senders. */
  withSenders(txs: readonly TypedTransaction[]): Promise<FollowedTx[]> {
    return Promise.all(
      txs.map(async (tx) => {
        const raw = tx.serialize();
        const decoded = decodeRawTransaction(raw, this.blobs);
        const sender = await recoverSender(decoded, this.chainId, {
          keccak256,
          ecrecover: nativeEcrecover,
          recovery: this.recovery,
        });
        return { tx, raw, hash: keccak256(decoded.signed), sender: hexToBytes(sender) };
      }),
    );
  }
}
