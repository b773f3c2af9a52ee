#!/usr/bin/env node
/**
 * Chain followers (issue 34). A sequencer (`wharf chain start`, 2 s blocks, 200 ms flashblocks)
 * and two followers (`wharf chain follow`), each its own process from the built CLI, on this
 * machine.
 *
 *   reads: eth_getBalance and eth_call (a storage read) spread over --addresses funded addresses,
 *          from wrk (--connections, --seconds), against one follower directly, nginx in front of
 *          that one follower, and nginx in front of both (Debian's /usr/sbin/nginx with
 *          docs/deploy/nginx-chain.conf, its upstream and listen rewritten). Requests/s, p50, p99
 *          and the ratio to the follower alone. On one machine nginx and both followers share the
 *          same cores: this shows what the proxy costs, not what a second machine would add.
 *   lag:   --rate transfers/s for --lag-seconds from --senders accounts to the sequencer; each
 *          node's /flashblocks and newHeads timestamped by one thread of this process: per
 *          flashblock, follower shown - sequencer shown (same block, index and partial-block
 *          hash: the follower's pending switched), per block, follower head - sequencer head
 *          (same hash). p50, p99, max, and what never arrived.
 *
 *   npm run build && node bench/followers.mjs [--only reads|lag] [--seconds 10] [--connections 32]
 *       [--rounds 3] [--addresses 1000] [--rate 1000] [--lag-seconds 10] [--senders 100]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { freePort } from './lib/peers.mjs';

const now = () => performance.timeOrigin + performance.now();

if (!isMainThread) {
  // The clock: timestamps every node's flashblocks and heads as they arrive, nothing else.
  const got = { flashblocks: [], heads: [] };
  const sockets = [];
  let open = 0;
  for (const [node, url] of workerData.nodes.entries()) {
    const fb = new WebSocket(`${url.replace(/^http/, 'ws')}/flashblocks`);
    fb.on('message', (d) => {
      const at = now();
      const m = JSON.parse(d.toString());
      got.flashblocks.push([
        node,
        `${m.metadata.block_number}:${m.index}:${m.diff.block_hash}`,
        m.diff.transactions.length,
        at,
      ]);
    });
    const heads = new WebSocket(url.replace(/^http/, 'ws'));
    heads.on('open', () =>
      heads.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })),
    );
    heads.on('message', (d) => {
      const at = now();
      const h = JSON.parse(d.toString()).params?.result;
      if (h) got.heads.push([node, h.hash, at]);
    });
    for (const s of [fb, heads]) {
      sockets.push(s);
      s.once('open', () => {
        if (++open === sockets.length) parentPort.postMessage({ open: true });
      });
    }
  }
  parentPort.on('message', () => {
    for (const s of sockets) s.terminate();
    parentPort.postMessage(got);
    parentPort.close();
  });
}

async function main() {
  const { values: o } = parseArgs({
    options: {
      only: { type: 'string' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      addresses: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '1000' },
      'lag-seconds': { type: 'string', default: '10' },
      senders: { type: 'string', default: '100' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const root = path.resolve(import.meta.dirname, '..');
  // The committed bin, as a user runs it (it sets the malloc arenas: docs/decisions/0560).
  const bin = path.join(root, 'packages/cli/bin/wharf');
  const senders = Number(o.senders);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-followers-'));
  const children = [];
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(
    `commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()}, ${os.cpus().length} cores, load average ${load()}`,
  );

  const start = async (args, ready) => {
    const child = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WHARF_LOG_LEVEL: 'warn' },
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-4000);
    });
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = ready.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`wharf ${args[1]} exited with ${code}\n${err}`)));
    });
  };
  const common = ['--port', '0', '--accounts', String(senders)];
  const sequencer = await start(
    ['chain', 'start', ...common, '--data-dir', path.join(scratch, 'seq'), '--block-time', '2'],
    /Chain RPC\s+(http:\/\/\S+)/,
  );
  const followers = await Promise.all(
    [1, 2].map((i) =>
      start(
        ['chain', 'follow', '--sequencer', sequencer, ...common, '--data-dir', path.join(scratch, `f${i}`)],
        /Follower\s+(http:\/\/\S+)/,
      ),
    ),
  );
  let nginx;
  try {
    if (o.only !== 'lag') await reads({ sequencer, followers, o, scratch, root }, (n) => (nginx = n));
    if (o.only !== 'reads') await lag({ sequencer, followers, o, senders });
    console.log(`load average at the end ${load()}`);
  } finally {
    nginx?.kill('SIGQUIT');
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

let nextId = 1;
async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

const MNEMONIC = 'test test test test test test test test test test test junk';

async function accounts(n) {
  const { mnemonicToAccount } = await import('viem/accounts');
  return Array.from({ length: n }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
}

function transfer(account, nonce, to, value = 1n) {
  return account.signTransaction({
    to,
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 31337,
    type: 'eip1559',
  });
}

/** Waits until every follower's head is the sequencer's. */
async function caughtUp(sequencer, followers) {
  for (;;) {
    const want = (await rpc(sequencer, 'eth_getBlockByNumber', ['latest', false])).hash;
    const have = await Promise.all(
      followers.map(async (f) => (await rpc(f, 'eth_getBlockByNumber', ['latest', false])).hash),
    );
    if (have.every((h) => h === want)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** nginx with docs/deploy/nginx-chain.conf, listening on 127.0.0.1:port, in front of `upstreams`. */
async function startNginx(root, scratch, name, upstreams) {
  const dir = path.join(scratch, name);
  fs.mkdirSync(dir, { recursive: true });
  const site = fs
    .readFileSync(path.join(root, 'docs/deploy/nginx-chain.conf'), 'utf8')
    .replace(/^\s*server \d+\.\d+\.\d+\.\d+:\d+.*$/gm, '')
    .replace(
      'least_conn;',
      `least_conn;\n${upstreams.map((u) => `    server ${new URL(u).host};`).join('\n')}`,
    )
    .replace(/listen 80;/, 'listen 127.0.0.1:PORT;');
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'site.conf'), site.replace('PORT', String(port)));
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes auto;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
      `  include ${dir}/site.conf;`,
      '}',
    ].join('\n'),
  );
  const child = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], {
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await rpc(url, 'eth_chainId');
      return { url, child };
    } catch (e) {
      if (i > 50) throw new Error(`nginx did not answer on ${url}: ${e.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** wrk with a Lua script cycling over the addresses: eth_getBalance and eth_call in turn. */
function wrkReads(url, addresses, contract, connections, seconds, scratch) {
  const script = path.join(scratch, 'reads.lua');
  fs.writeFileSync(
    script,
    [
      'local addrs = {',
      ...addresses.map((a) => `"${a}",`),
      '}',
      'local i = 0',
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      'request = function()',
      '  i = i + 1',
      '  local a = addrs[(i % #addrs) + 1]',
      '  local body',
      '  if i % 2 == 0 then',
      '    body = \'{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["\' .. a .. \'","latest"]}\'',
      '  else',
      `    body = '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"${contract}","data":"0x000000000000000000000000' .. string.sub(a, 3) .. '"},"latest"]}'`,
      '  end',
      '  return wrk.format(nil, nil, nil, body)',
      'end',
    ].join('\n'),
  );
  const r = spawnSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const ms = (t) => {
    const m = /^([\d.]+)(us|ms|s)$/.exec(t ?? '');
    return m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]] : Number.NaN;
  };
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]),
    p50: ms(/\s50%\s+(\S+)/.exec(r.stdout)?.[1]),
    p99: ms(/\s99%\s+(\S+)/.exec(r.stdout)?.[1]),
    errors: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(r.stdout)?.[1] ?? 0),
  };
}

async function reads({ sequencer, followers, o, scratch, root }, keep) {
  if (spawnSync('wrk', ['--version']).error) throw new Error('reads need wrk (apt-get install wrk)');
  const n = Number(o.addresses);
  const funders = await accounts(10);
  const funder = funders[0];
  // A contract answering SLOAD(calldata[0]): eth_call runs the EVM and reads storage.
  const runtime = '6000355460005260206000f3';
  const init = `0x6b${runtime}600052600c6014f3`;
  const nonces = await Promise.all(
    funders.map(async (a) => Number(await rpc(sequencer, 'eth_getTransactionCount', [a.address, 'pending']))),
  );
  const deploy = await funder.signTransaction({
    data: init,
    nonce: nonces[0]++,
    gas: 100_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 31337,
    type: 'eip1559',
  });
  const { contractAddress } = await rpc(sequencer, 'eth_sendRawTransactionSync', [deploy]);
  // --addresses funded addresses (fresh: each is a trie path of its own).
  const addresses = Array.from({ length: n }, (_, i) => `0x${(0xbe0000 + i).toString(16).padStart(40, '0')}`);
  for (let i = 0; i < n; i += 100) {
    const raws = await Promise.all(
      addresses.slice(i, i + 100).map((a, k) => transfer(funders[k % 10], nonces[k % 10]++, a, 1000n)),
    );
    await Promise.all(raws.map((raw) => rpc(sequencer, 'eth_sendRawTransaction', [raw])));
  }
  await new Promise((r) => setTimeout(r, 2500));
  await caughtUp(sequencer, followers);
  if ((await rpc(followers[1], 'eth_getBalance', [addresses[n - 1], 'latest'])) !== '0x3e8')
    throw new Error('the followers do not have the funded addresses');
  const one = await startNginx(root, scratch, 'nginx-one', [followers[0]]);
  const both = await startNginx(root, scratch, 'nginx-both', followers);
  keep({
    kill: (s) => {
      for (const c of [one.child, both.child]) c.kill(s);
    },
  });
  const seconds = Number(o.seconds);
  const connections = Number(o.connections);
  const targets = [
    ['one follower, direct', followers[0]],
    ['nginx -> one follower', one.url],
    ['nginx -> two followers', both.url],
  ];
  // Rounds of the three in turn, the median round of each kept: a shared machine's load moves
  // during a run, and interleaving spreads that over all three.
  const runs = targets.map(() => []);
  for (const [, url] of targets) wrkReads(url, addresses, contractAddress, connections, 2, scratch); // warm-up
  for (let round = 0; round < Number(o.rounds); round++)
    for (const [t, [, url]] of targets.entries())
      runs[t].push(wrkReads(url, addresses, contractAddress, connections, seconds, scratch));
  const rows = targets.map(([name], t) => {
    const sorted = [...runs[t]].sort((a, b) => a.rps - b.rps);
    return {
      name,
      ...sorted[Math.floor(sorted.length / 2)],
      all: runs[t].map((r) => r.rps.toFixed(0)).join(', '),
    };
  });
  const base = rows[0].rps;
  console.log(
    `\nreads: eth_getBalance + eth_call (SLOAD) over ${n} funded addresses at latest, wrk -t2 -c${connections} -d${seconds}s, ${o.rounds} rounds (median round shown)`,
  );
  console.log('| Target | Requests/s | p50 ms | p99 ms | Non-2xx | vs one follower | Requests/s per round |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} | ${(r.rps / base).toFixed(2)} | ${r.all} |`,
    );
}

async function lag({ sequencer, followers, o, senders }) {
  const rate = Number(o.rate);
  const seconds = Number(o['lag-seconds']);
  const from = await accounts(senders);
  const nonces = await Promise.all(
    from.map(async (a) => Number(await rpc(sequencer, 'eth_getTransactionCount', [a.address, 'pending']))),
  );
  const perSender = Math.ceil((rate * seconds) / senders);
  const t0 = Date.now();
  const signed = await Promise.all(
    from.map((a, i) =>
      Promise.all(
        Array.from({ length: perSender }, () =>
          transfer(a, nonces[i]++, `0x${(0xfe0000 + i).toString(16).padStart(40, '0')}`),
        ),
      ),
    ),
  );
  console.log(`\nlag: signed ${perSender * senders} transfers in ${Date.now() - t0} ms`);
  await caughtUp(sequencer, followers);
  const watcher = new Worker(new URL(import.meta.url), { workerData: { nodes: [sequencer, ...followers] } });
  await new Promise((r) => watcher.once('message', r));
  // Over WebSockets, 4 connections: HTTP at 1,000 requests/s costs the sender and the node more
  // than the transfers do (and under a shared machine's load the node closes sockets it cannot serve).
  const sockets = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const ws = new WebSocket(sequencer.replace(/^http/, 'ws'));
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const waiting = new Map();
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString());
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      });
      let id = 0;
      return {
        ws,
        send: (raw) =>
          new Promise((resolve) => {
            waiting.set(++id, resolve);
            ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }));
          }),
      };
    }),
  );
  // Transaction i of sender s is due at start + (i * senders + s) / rate.
  const start = Date.now() + 200;
  const pending = [];
  let failures = 0;
  await Promise.all(
    signed.map(async (list, s) => {
      for (const [i, raw] of list.entries()) {
        const due = start + ((i * senders + s) * 1000) / rate;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(
          sockets[s % sockets.length].send(raw).then((m) => {
            if (m.error) failures++;
          }),
        );
      }
    }),
  );
  const achieved = (perSender * senders) / ((Date.now() - start) / 1000);
  await Promise.all(pending);
  for (const { ws } of sockets) ws.close();
  await new Promise((r) => setTimeout(r, 3000));
  watcher.postMessage('stop');
  const got = await new Promise((r) => watcher.once('message', r));
  const firstSeen = (rows) => {
    const maps = [new Map(), new Map(), new Map()];
    for (const [node, key, ...rest] of rows) if (!maps[node].has(key)) maps[node].set(key, rest);
    return maps;
  };
  const fb = firstSeen(got.flashblocks);
  const heads = firstSeen(got.heads);
  const pendingLag = [];
  const sealedLag = [];
  let missingFb = 0;
  let missingHeads = 0;
  let withTxs = 0;
  for (const f of [1, 2]) {
    for (const [key, [txs, at]] of fb[0]) {
      if (key.split(':')[1] === '0' || txs === 0) continue;
      if (f === 1) withTxs++;
      const theirs = fb[f].get(key);
      if (theirs) pendingLag.push(theirs[1] - at);
      else missingFb++;
    }
    for (const [hash, [at]] of heads[0]) {
      const theirs = heads[f].get(hash);
      if (theirs) sealedLag.push(theirs[0] - at);
      else missingHeads++;
    }
  }
  const stats = (xs) => {
    xs.sort((a, b) => a - b);
    const p = (q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;
    return `${p(0.5).toFixed(1)} | ${p(0.99).toFixed(1)} | ${(xs[xs.length - 1] ?? Number.NaN).toFixed(1)} | ${xs.length}`;
  };
  console.log(
    `offered ${rate}/s for ${seconds} s from ${senders} senders: achieved ${achieved.toFixed(0)}/s, ${failures} refused; ${withTxs} sequencer flashblocks with transactions, ${heads[0].size} blocks`,
  );
  console.log('| Follower lag (both followers) | p50 ms | p99 ms | max ms | samples | never arrived |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| flashblock published -> follower pending shows it | ${stats(pendingLag)} | ${missingFb} |`);
  console.log(`| block sealed -> follower imported it | ${stats(sealedLag)} | ${missingHeads} |`);
}

if (isMainThread) await main();
