#!/usr/bin/env node
/**
 * A Hardhat 2 project's test suite (hardhat-suite/: deploy a contract, move time, snapshots,
 * impersonation, with @nomicfoundation/hardhat-ethers) run three times in one go: against wharf
 * (`--network wharf`, automine, in memory), Hardhat's own in-process network and Anvil. A peer
 * that is not installed is left out, saying so. Exits non-zero if any run fails.
 * Usage: node bench/hardhat-suite.mjs [--peers wharf,hardhat,anvil]
 * Needs `npm run build` first (wharf runs from packages/cli/dist).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { anvilNode, installedPeers, wharfNode } from './lib/peers.mjs';

const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { peers: { type: 'string', default: 'wharf,hardhat,anvil' } } });
const project = path.join(import.meta.dirname, 'hardhat-suite');

try {
  require.resolve('hardhat/package.json');
  require.resolve('@nomicfoundation/hardhat-ethers/package.json');
} catch {
  process.stderr.write(
    'hardhat-suite: hardhat or @nomicfoundation/hardhat-ethers is not installed; nothing to run\n',
  );
  process.exit(0);
}

// Compiled here with solc-js: Hardhat would download a compiler, and there is no internet.
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  uint256 public last;
  address public lastCaller;
  function increment() external { count += 1; lastCaller = msg.sender; }
  function stamp() external { last = block.timestamp; }
}`;
const solc = require('solc');
const out = JSON.parse(
  solc.compile(
    JSON.stringify({
      language: 'Solidity',
      sources: { 'Counter.sol': { content: SOURCE } },
      settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
    }),
  ),
);
const c = out.contracts['Counter.sol'].Counter;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hardhat-suite-'));
const counterJson = path.join(scratch, 'Counter.json');
fs.writeFileSync(counterJson, JSON.stringify({ abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }));

const hardhatCli = require.resolve('hardhat/internal/cli/cli.js');
function runSuite(networkName, env) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [hardhatCli, 'test', '--no-compile', '--network', networkName], {
    cwd: project,
    env: { ...process.env, ...env, COUNTER_JSON: counterJson, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    encoding: 'utf8',
  });
  const text = `${r.stdout}${r.stderr}`;
  process.stdout.write(text);
  const passing = Number(/(\d+) passing/.exec(text)?.[1] ?? 0);
  const failing = Number(/(\d+) failing/.exec(text)?.[1] ?? 0);
  return {
    network: networkName,
    passing,
    failing,
    ok: r.status === 0,
    seconds: (Date.now() - started) / 1000,
  };
}

const results = [];
let port = 19545;
try {
  for (const peer of installedPeers(values.peers.split(','))) {
    if (peer === 'hardhat') {
      results.push(runSuite('hardhat', {}));
      continue;
    }
    const node =
      peer === 'wharf'
        ? wharfNode({ port: port++, blockTime: 0, extra: ['--ephemeral'] })
        : anvilNode({ port: port++, blockTime: 0 });
    try {
      await node.ready();
      results.push(runSuite(peer, peer === 'wharf' ? { WHARF_URL: node.url } : { ANVIL_URL: node.url }));
    } finally {
      await node.stop();
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
console.log('\nnetwork    passing  failing  seconds');
for (const r of results)
  console.log(
    `${r.network.padEnd(10)} ${String(r.passing).padStart(7)}  ${String(r.failing).padStart(7)}  ${r.seconds.toFixed(1).padStart(7)}`,
  );
process.exit(results.every((r) => r.ok) ? 0 : 1);
