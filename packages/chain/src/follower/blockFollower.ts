/**
 * Imports the sequencer's sealed blocks into a follower: every `pollMs` it asks the sequencer's
 * head, fetches each missing block's RLP (debug_getRawBlock) and hands it to the producer, which
 * validates it (header against its parent, every root recomputed by executing it) and imports it.
 * While the flashblock stream is live, the one block the head is behind is usually sealed from
 * its flashblocks (the next block's first flashblock names it): it is fetched only once it has
 * been missing for `graceMs`, or at once when the stream shows it will not be (`nudge`); two or
 * more behind are fetched at once. A restart resumes from the
 * data dir's head. A block that does not follow the local head (the sequencer's chain differs)
 * stops the follower with an error: it never imports a second history.
 */
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import { bytesToHex, hexToBytes } from '../primitives/hex.js';
import type { FollowedTx } from '../builder/followedBlocks.js';
import type { FollowedTxDecoder } from './followedTx.js';
import type { SequencerClient } from './sequencerClient.js';

export interface BlockImporter {
  /** Validates and imports a sealed block on the current head. Consumer: BlockFollower. */
  importSealed(block: Block, txs?: readonly FollowedTx[]): Promise<void>;
}

export interface BlockFollowerOptions {
  pollMs: number;
  /** Recovers the blocks' senders off the event loop (else the producer recovers them). */
  decoder?: FollowedTxDecoder;
  /** Whether the flashblock stream is live now (see `graceMs`). */
  streaming?: () => boolean;
  /** How long the next block may be missing while streaming before it is fetched (ms). */
  graceMs?: number;
  onError?: (e: unknown) => void;
  onImported?: (block: Block) => void;
}

export class BlockFollower {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** Since when (ms) the head has been exactly one block behind the sequencer's. */
  private behindSince?: number;
  /** Blocks imported since start. */
  imported = 0;
  /** The last error, cleared by the next successful round. */
  lastError?: Error;

  constructor(
    private readonly ctx: ChainContext,
    private readonly sequencer: SequencerClient,
    private readonly importer: BlockImporter,
    private readonly options: BlockFollowerOptions,
  ) {}

  /** Set by `nudge`: the next round fetches even a block the stream would seal. */
  private urgent = false;

  /**
   * The flashblock stream is ahead (a flashblock of a block past the next, or of a next block
   * whose parent is not the pending block): fetch now, without the grace.
   */
  nudge(): void {
    this.urgent = true;
    if (this.stopped || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.round();
  }

  private round = (): void => {
    if (this.stopped) return;
    this.running = this.syncOnce()
      .then(
        () => {
          this.lastError = undefined;
        },
        (e) => {
          this.lastError = e as Error;
          this.options.onError?.(e);
        },
      )
      .finally(() => {
        if (!this.stopped) this.timer = setTimeout(this.round, this.options.pollMs);
      });
  };

  start(): void {
    this.round();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Imports every block the sequencer sealed past the local head. Returns how many. */
  async syncOnce(): Promise<number> {
    const target = BigInt(await this.sequencer.call<string>('eth_blockNumber'));
    let count = 0;
    const { streaming, graceMs = 0 } = this.options;
    if (this.ctx.blocks.head.header.number + 1n === target && streaming?.() && !this.urgent) {
      const now = Date.now();
      this.behindSince ??= now;
      if (now - this.behindSince < graceMs) return 0;
    }
    this.behindSince = undefined;
    this.urgent = false;
    while (!this.stopped && this.ctx.blocks.head.header.number < target) {
      const number = this.ctx.blocks.head.header.number + 1n;
      const rlp = await this.sequencer.call<string>('debug_getRawBlock', [`0x${number.toString(16)}`]);
      const block = createBlockFromRLP(hexToBytes(rlp), { common: this.ctx.spec.common, setHardfork: true });
      if (block.header.number !== number)
        throw new Error(`the sequencer answered block ${block.header.number} for ${number}`);
      const txs = await this.options.decoder?.withSenders(block.transactions);
      const head = this.ctx.blocks.head;
      // Sealed from its flashblocks meanwhile.
      if (head.header.number >= number) continue;
      if (bytesToHex(block.header.parentHash) !== bytesToHex(head.hash()))
        throw new Error(
          `the sequencer's block ${number} does not follow this follower's head ${bytesToHex(head.hash())}: a different chain; use a fresh --data-dir`,
        );
      await this.importer.importSealed(block, txs);
      this.imported++;
      count++;
      this.options.onImported?.(block);
    }
    return count;
  }
}
