#!/usr/bin/env node
// Imports the execution-apis chain into a temporary data dir, serves it with mining off and runs
// the rpc-compat suite against it (in a child process, so this one keeps serving). Prints
// "N passed, N failed"; --record writes the pass count to conformance-baseline.json; exits 1
// when the count drops below the recorded baseline.
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/conformance.mjs [--record] [-v]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const shared = process.env.WHARF_CONFORMANCE_DIR ?? path.resolve(pkg, '../../../shared/conformance');
const tests = path.join(shared, 'execution-apis/tests');
const baselineFile = path.join(pkg, 'conformance-baseline.json');
const args = process.argv.slice(2);
const record = args.includes('--record');
const passThrough = args.filter((a) => a !== '--record');

const { importChain, startChainNode, defaultChainNodeOptions } = await import(
  path.join(pkg, 'dist/index.js')
);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-conformance-'));
let passed = 0;
let failed = 0;
try {
  await importChain({
    dataDir,
    genesisPath: path.join(tests, 'genesis.json'),
    chainPath: path.join(tests, 'chain.rlp'),
  });
  const node = await startChainNode({
    ...defaultChainNodeOptions,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    mining: false,
  });
  try {
    const output = await new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [path.join(shared, 'run-compat.mjs'), '--url', node.url, '--tests', tests, ...passThrough],
        { cwd: path.resolve(pkg, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
        process.stdout.write(d);
      });
      child.on('close', () => resolve(text));
    });
    const m = /(\d+) passed, (\d+) failed/.exec(output);
    if (m) [passed, failed] = [Number(m[1]), Number(m[2])];
  } finally {
    await node.close();
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
const baseline = fs.existsSync(baselineFile) ? JSON.parse(fs.readFileSync(baselineFile, 'utf8')).passed : 0;
if (record) {
  fs.writeFileSync(
    baselineFile,
    `${JSON.stringify({ passed, total: passed + failed, recorded: new Date().toISOString().slice(0, 10) }, null, 2)}\n`,
  );
  console.log(`recorded ${passed} in ${path.relative(process.cwd(), baselineFile)}`);
} else if (passThrough.some((a) => a === '--filter' || a === '--methods')) {
  // A partial run says nothing about the baseline.
} else if (passed < baseline) {
  console.error(`conformance dropped: ${passed} < baseline ${baseline}`);
  process.exit(1);
}
