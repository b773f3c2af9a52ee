/**
 * Imports the sequencer's sealed blocks into a follower: every `pollMs` it asks the sequencer's
 * head, fetches each missing block's RLP (debug_getRawBlock) and hands it to the producer, which
 * validates it (header against its parent, every root recomputed by executing it) and imports it.
 * A restart resumes from the data dir's head. A block that does not follow the local head (the
 * sequencer's chain differs) stops the follower with an error: it never imports a second history.
 */
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import { bytesToHex, hexToBytes } from '../primitives/hex.js';
import type { SequencerClient } from './sequencerClient.js';

export interface BlockImporter {
  /** Validates and imports a sealed block on the current head. Consumer: BlockFollower. */
  importSealed(block: Block): Promise<void>;
}

export interface BlockFollowerOptions {
  pollMs: number;
  onError?: (e: unknown) => void;
  onImported?: (block: Block) => void;
}

export class BlockFollower {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
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

  start(): void {
    const round = () => {
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
          if (!this.stopped) this.timer = setTimeout(round, this.options.pollMs);
        });
    };
    round();
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
    while (!this.stopped && this.ctx.blocks.head.header.number < target) {
      const number = this.ctx.blocks.head.header.number + 1n;
      const rlp = await this.sequencer.call<string>('debug_getRawBlock', [`0x${number.toString(16)}`]);
      const block = createBlockFromRLP(hexToBytes(rlp), { common: this.ctx.spec.common, setHardfork: true });
      if (block.header.number !== number)
        throw new Error(`the sequencer answered block ${block.header.number} for ${number}`);
      const head = this.ctx.blocks.head;
      if (bytesToHex(block.header.parentHash) !== bytesToHex(head.hash()))
        throw new Error(
          `the sequencer's block ${number} does not follow this follower's head ${bytesToHex(head.hash())}: a different chain; use a fresh --data-dir`,
        );
      await this.importer.importSealed(block);
      this.imported++;
      count++;
      this.options.onImported?.(block);
    }
    return count;
  }
}
