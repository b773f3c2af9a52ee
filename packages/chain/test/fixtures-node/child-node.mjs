// A chain node in its own process (for kill -9 tests): node child-node.mjs DATA_DIR [BLOCK_TIME]
// Prints one JSON line {url} once it serves. Uses the built package (dist/).
import { defaultChainNodeOptions, startChainNode } from '../../dist/index.js';

const node = await startChainNode({
  ...defaultChainNodeOptions,
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
