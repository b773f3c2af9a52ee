/**
 * The builder's Prometheus metrics (served at GET /metrics): flashblock build time and lateness,
 * transactions per flashblock, submit-to-pending latency (pool arrival to publication) and seal time.
 * Histograms with fixed buckets; `render()` is the text exposition format.
 */
import { Histogram } from '../prometheus.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5];

export class BuilderMetrics {
  readonly flashblockBuild = new Histogram(
    'wharf_flashblock_build_seconds',
    'Time from a flashblock starting to its being ready to publish (execution, journal write, roots).',
    SECONDS,
  );
  readonly flashblockLateness = new Histogram(
    'wharf_flashblock_lateness_seconds',
    'How long after its deadline (block open + index * interval) a flashblock was published; 0 when on time.',
    [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
  );
  readonly flashblockTxs = new Histogram(
    'wharf_flashblock_transactions',
    'Transactions pre-confirmed per flashblock (index 1..n).',
    [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000],
  );
  readonly submitToPending = new Histogram(
    'wharf_submit_to_pending_seconds',
    'Time from the pool accepting a transaction to the flashblock that pre-confirms it.',
    SECONDS,
  );
  readonly seal = new Histogram('wharf_seal_seconds', 'Time to seal and store a block.', SECONDS);
  readonly journalAppend = new Histogram(
    'wharf_journal_append_seconds',
    "A flashblock's journal write (the writer thread's O_DSYNC write, until its bytes are on disk), part of its build; its state root is computed meanwhile.",
    [0.001, 0.0025, ...SECONDS],
  );
  readonly sealDurableWait = new Histogram(
    'wharf_seal_durable_wait_seconds',
    "Time the next block's journal file waited for an earlier block to reach LevelDB before starting over (behind the seal: only that block's first flashblock waits for it).",
    SECONDS,
  );
  flashblocks = 0;
  blocks = 0;
  /**
   * A follower's: flashblocks of its sequencer applied and dropped; blocks sealed from the
   * flashblocks alone, re-executed on the pending block, and imported by execution/importBlock.ts.
   */
  readonly follow = { applied: 0, dropped: 0, fromFlashblocks: 0, reexecuted: 0, imported: 0 };

  render(): string {
    return `${[
      this.flashblockBuild.render(),
      this.flashblockLateness.render(),
      this.flashblockTxs.render(),
      this.submitToPending.render(),
      this.seal.render(),
      this.journalAppend.render(),
      this.sealDurableWait.render(),
      '# HELP wharf_flashblocks_total Flashblocks published (index 0 included).',
      '# TYPE wharf_flashblocks_total counter',
      `wharf_flashblocks_total ${this.flashblocks}`,
      '# HELP wharf_blocks_sealed_total Blocks sealed by the builder.',
      '# TYPE wharf_blocks_sealed_total counter',
      `wharf_blocks_sealed_total ${this.blocks}`,
      "# HELP wharf_follower_flashblocks_applied_total A follower's: the sequencer's flashblocks re-executed and shown.",
      '# TYPE wharf_follower_flashblocks_applied_total counter',
      `wharf_follower_flashblocks_applied_total ${this.follow.applied}`,
      "# HELP wharf_follower_flashblocks_dropped_total A follower's: the sequencer's flashblocks dropped (their re-execution or the sealed block contradicted them, or one before them was missed).",
      '# TYPE wharf_follower_flashblocks_dropped_total counter',
      `wharf_follower_flashblocks_dropped_total ${this.follow.dropped}`,
      "# HELP wharf_follower_blocks_total A follower's: blocks of the sequencer it sealed, by how (flashblocks: from the flashblocks alone; reexecuted: the rest of the sealed block executed on the pending block; imported: execution/importBlock.ts).",
      '# TYPE wharf_follower_blocks_total counter',
      `wharf_follower_blocks_total{path="flashblocks"} ${this.follow.fromFlashblocks}`,
      `wharf_follower_blocks_total{path="reexecuted"} ${this.follow.reexecuted}`,
      `wharf_follower_blocks_total{path="imported"} ${this.follow.imported}`,
    ].join('\n')}\n`;
  }
}
