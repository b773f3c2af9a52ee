// A chain node in its own process (for kill -9 tests): node child-node.mjs DATA_DIR [BLOCK_TIME]
// Prints one JSON line {url} once it serves. Uses the built package (dist/).
// WHARF_TEST_SLOW_WRITES_MS=N (a fault, for tests): every block's LevelDB batch lands N ms late,
// so a kill -9 finds sealed blocks that are not on disk yet.
// WHARF_TEST_JOURNAL_FULL=1 (a fault): the pool journal's writes go to /dev/full, every one
// failing with ENOSPC as on a full disk.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { ClassicLevel } from 'classic-level';
import { defaultChainNodeOptions, startChainNode } from '../../dist/index.js';

const slow = Number(process.env.WHARF_TEST_SLOW_WRITES_MS ?? 0);
if (slow > 0) {
  const chained = ClassicLevel.prototype._chainedBatch;
  ClassicLevel.prototype._chainedBatch = function () {
    const batch = chained.call(this);
    const write = batch.write.bind(batch);
    batch.write = (...args) => new Promise((r) => setTimeout(r, slow)).then(() => write(...args));
    return batch;
  };
}

if (process.env.WHARF_TEST_JOURNAL_FULL) {
  const full = (p) => (String(p).includes('txpool.journal') ? '/dev/full' : p);
  const createWriteStream = fs.createWriteStream;
  fs.createWriteStream = (p, o) => createWriteStream(full(p), o);
  const open = fs.promises.open;
  fs.promises.open = (p, ...rest) => open(full(p), ...rest);
  syncBuiltinESMExports();
}

// WHARF_TEST_LIMITS='{"httpRequestTimeoutMs":2000}': RPC limits other than the defaults.
const limits = { ...defaultChainNodeOptions.limits, ...JSON.parse(process.env.WHARF_TEST_LIMITS ?? '{}') };

// WHARF_TEST_LOG=warn: the node's log (late flashblocks, failures) on stderr.
const logger = process.env.WHARF_TEST_LOG
  ? (await import('pino')).default({ level: process.env.WHARF_TEST_LOG }, process.stderr)
  : undefined;

const node = await startChainNode({
  ...defaultChainNodeOptions,
  logger,
  limits,
  host: '127.0.0.1',
  port: 0,
  dataDir: process.argv[2],
  blockTime: Number(process.argv[3] ?? 0),
});
process.stdout.write(`${JSON.stringify({ url: node.url })}\n`);
process.on('SIGTERM', async () => {
  await node.close();
  process.exit(0);
});
