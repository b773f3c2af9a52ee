/** The block producer's settings, and how it seals blocks (the dev methods switch that). */
import type { FlashblockJournal } from './flashblockJournal.js';
import type { LateFlashblock } from './lateFlashblocks.js';

export interface ProducerOptions {
  /** Seconds between seals; 0 seals one block per transaction. */
  blockTime: number;
  /** Milliseconds between flashblocks. */
  flashblockInterval: number;
  mining: boolean;
  extraData?: Uint8Array;
  /** Where flashblocks go before they are published; none: pre-confirmations do not survive a crash. */
  journal?: FlashblockJournal;
  now?: () => number;
  onError?: (e: unknown) => void;
  /** A timed flashblock was shown late (more than a tenth of the interval), and why. */
  onLate?: (late: LateFlashblock) => void;
  /** A follower's producer: blocks come from its sequencer (which keeps a copy of each). */
  following?: boolean;
  /** A follower dropped flashblocks of its sequencer (contradicted or missed), and why. */
  onDropped?: (drop: DroppedFlashblocks) => void;
}

/** Flashblocks a follower dropped: never shown, or no longer shown. */
export interface DroppedFlashblocks {
  block: bigint;
  /** How many (the one refused, or those the sealed block contradicted). */
  count: number;
  reason: string;
}

/**
 * How blocks are sealed (the dev methods switch it: evm_setAutomine, evm_setIntervalMining).
 * `interval`: flashblocks every flashblockInterval, a seal every blockTime (wharf's own);
 * `auto`: a block per transaction (blockTime 0; Anvil's and Hardhat's default); `manual`: no
 * sealing and no pre-confirmation of pool transactions until `mine()` (Hardhat's automine off).
 * See docs/decisions/0140-dev-methods-and-flashblocks.md.
 */
export type SealMode = 'interval' | 'auto' | 'manual';
