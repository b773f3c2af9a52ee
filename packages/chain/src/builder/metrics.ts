/**
 * The builder's Prometheus metrics (served at GET /metrics, prom-client): flashblock build time
 * and lateness, transactions per flashblock, submit-to-pending latency (pool arrival to
 * publication), seal time, the journal's writes, the flashblocks and blocks counted, and a
 * follower's flashblocks and blocks (applied, dropped, by path). Histograms
 * with fixed buckets, in the node's own registry (several nodes in one process never mix counts).
 */
import { Counter, Histogram, Registry } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5];

export class BuilderMetrics {
  /** The node's registry: the process's and the pool's metrics join it (node.ts). */
  readonly registry = new Registry();
  private readonly registers = [this.registry];
  readonly flashblockBuild = new Histogram({
    name: 'wharf_flashblock_build_seconds',
    help: 'Time from a flashblock starting to its being ready to publish (execution, journal write, roots).',
    buckets: SECONDS,
    registers: this.registers,
  });
  readonly flashblockLateness = new Histogram({
    name: 'wharf_flashblock_lateness_seconds',
    help: 'How long after its deadline (block open + index * interval) a flashblock was published; 0 when on time.',
    buckets: [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
    registers: this.registers,
  });
  readonly flashblockTxs = new Histogram({
    name: 'wharf_flashblock_transactions',
    help: 'Transactions pre-confirmed per flashblock (index 1..n).',
    buckets: [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: this.registers,
  });
  readonly submitToPending = new Histogram({
    name: 'wharf_submit_to_pending_seconds',
    help: 'Time from the pool accepting a transaction to the flashblock that pre-confirms it.',
    buckets: SECONDS,
    registers: this.registers,
  });
  readonly seal = new Histogram({
    name: 'wharf_seal_seconds',
    help: 'Time to seal and store a block.',
    buckets: SECONDS,
    registers: this.registers,
  });
  readonly journalAppend = new Histogram({
    name: 'wharf_journal_append_seconds',
    help: "A flashblock's journal write (the writer thread's O_DSYNC write, until its bytes are on disk), part of its build; its state root is computed meanwhile.",
    buckets: [0.001, 0.0025, ...SECONDS],
    registers: this.registers,
  });
  readonly sealDurableWait = new Histogram({
    name: 'wharf_seal_durable_wait_seconds',
    help: "Time the next block's journal file waited for an earlier block to reach LevelDB before starting over (behind the seal: only that block's first flashblock waits for it).",
    buckets: SECONDS,
    registers: this.registers,
  });
  readonly flashblocks = new Counter({
    name: 'wharf_flashblocks_total',
    help: 'Flashblocks published (index 0 included).',
    registers: this.registers,
  });
  readonly blocks = new Counter({
    name: 'wharf_blocks_sealed_total',
    help: 'Blocks sealed by the builder.',
    registers: this.registers,
  });
  /**
   * A follower's: flashblocks of its sequencer applied and dropped; blocks sealed from the
   * flashblocks alone, re-executed on the pending block, and imported by execution/importBlock.ts.
   * Plain counts (the follower adds to them), read into the counters below when scraped.
   */
  readonly follow = { applied: 0, dropped: 0, fromFlashblocks: 0, reexecuted: 0, imported: 0 };

  constructor() {
    const follow = this.follow;
    const registers = this.registers;
    /** A counter that shows `read()` when scraped. */
    const counted = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    counted(
      'wharf_follower_flashblocks_applied_total',
      "A follower's: the sequencer's flashblocks re-executed and shown.",
      () => follow.applied,
    );
    counted(
      'wharf_follower_flashblocks_dropped_total',
      "A follower's: the sequencer's flashblocks dropped (their re-execution or the sealed block contradicted them, or one before them was missed).",
      () => follow.dropped,
    );
    new Counter({
      name: 'wharf_follower_blocks_total',
      help: "A follower's: blocks of the sequencer it sealed, by how (flashblocks: from the flashblocks alone; reexecuted: the rest of the sealed block executed on the pending block; imported: execution/importBlock.ts).",
      labelNames: ['path'],
      registers,
      collect() {
        this.reset();
        this.inc({ path: 'flashblocks' }, follow.fromFlashblocks);
        this.inc({ path: 'reexecuted' }, follow.reexecuted);
        this.inc({ path: 'imported' }, follow.imported);
      },
    });
  }
}
