#!/usr/bin/env node
/**
 * eth_sendRawTransactionSync from request to answer (issue 31). A wharf node (built CLI,
 * `wharf chain start`, 2 s blocks, 200 ms flashblocks) is sent signed transfers with
 * eth_sendRawTransactionSync at a steady rate — first 100/s, then 1,000/s — from a worker thread
 * over WebSockets, so that sending never waits for the main thread. Each request's time from
 * leaving the client to its answer (the pre-confirmed receipt) is measured. Prints p50, p90,
 * p99 and max per rate, and the errors; the goal is p50 <= 130 ms and p99 <= 250 ms (half an
 * interval, ~100 ms, is the mean wait for the next flashblock: the floor).
 *
 *   npm run build && node bench/send-sync.mjs [--rates 100,1000] [--seconds 20] [--senders 100]
 *                                             [--connections 8] [--warmup 2]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const now = () => performance.timeOrigin + performance.now();

if (!isMainThread) {
  // The sender: K connections, request i due at start + i / rate.
  const { wsUrl, raws, rate, connections } = workerData;
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => {
      const ws = new WebSocket(wsUrl);
      return new Promise((resolve, reject) => {
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    }),
  );
  const sentAt = new Float64Array(raws.length);
  const took = new Float64Array(raws.length).fill(Number.NaN);
  // Where each answer's receipt put the transfer: its block and index there (the phases below).
  const blockOf = new Float64Array(raws.length).fill(Number.NaN);
  const errors = {};
  let outstanding = raws.length;
  let done;
  const finished = new Promise((r) => {
    done = r;
  });
  for (const ws of sockets)
    ws.on('message', (d) => {
      const at = now();
      const m = JSON.parse(d.toString());
      if (m.error) {
        const key = `${m.error.code} ${String(m.error.message)
          .replace(/0x[0-9a-f]+/g, '0x…')
          .slice(0, 80)}`;
        errors[key] = (errors[key] ?? 0) + 1;
      } else {
        took[m.id] = at - sentAt[m.id];
        blockOf[m.id] = Number(m.result.blockNumber);
      }
      if (--outstanding === 0) done();
    });
  const t0 = now() + 50;
  for (let i = 0; i < raws.length; i++) {
    const wait = t0 + (i * 1000) / rate - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    sentAt[i] = now();
    sockets[i % connections].send(
      `{"jsonrpc":"2.0","id":${i},"method":"eth_sendRawTransactionSync","params":["${raws[i]}"]}`,
    );
  }
  const sendSeconds = (now() - t0) / 1000;
  await finished;
  for (const ws of sockets) ws.close();
  parentPort.postMessage({
    took: Array.from(took),
    sentAt: Array.from(sentAt),
    blockOf: Array.from(blockOf),
    errors,
    sendSeconds,
  });
} else {
  await main();
}

/**
 * Where the time goes, from the client's side alone: answers come in one burst per flashblock
 * (every answer of a flashblock at its showing), so transfers answered in one burst from one
 * block are one flashblock. For each: its cut-off is at or after the newest transfer it took was
 * sent, so `cutoffLead` (that send to the burst's first answer) bounds from above how long before
 * its showing a flashblock stopped taking transfers; `spread` is each answer after its burst's
 * first (the node answering a flashblock's transfers one after the other).
 */
function phases(out, from) {
  const ids = [];
  for (let i = from; i < out.took.length; i++) if (!Number.isNaN(out.took[i])) ids.push(i);
  const answeredAt = (i) => out.sentAt[i] + out.took[i];
  ids.sort((a, b) => answeredAt(a) - answeredAt(b));
  const cutoffLead = [];
  const spread = [];
  let group = [];
  const close = () => {
    if (group.length < 5) return; // a seal's stragglers, not a flashblock's burst
    const first = answeredAt(group[0]);
    cutoffLead.push(first - Math.max(...group.map((i) => out.sentAt[i])));
    for (const i of group) spread.push(answeredAt(i) - first);
  };
  for (const i of ids) {
    const g = group.at(-1);
    if (g !== undefined && (answeredAt(i) - answeredAt(g) > 50 || out.blockOf[i] !== out.blockOf[g])) {
      close();
      group = [];
    }
    group.push(i);
  }
  close();
  cutoffLead.sort((a, b) => a - b);
  spread.sort((a, b) => a - b);
  return { flashblocks: cutoffLead.length, cutoffLead, spread };
}

function pct(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      rates: { type: 'string', default: '100,1000' },
      seconds: { type: 'string', default: '20' },
      senders: { type: 'string', default: '100' },
      connections: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      port: { type: 'string', default: '18646' },
    },
  });
  const RATES = args.rates.split(',').map(Number);
  const SECONDS = Number(args.seconds);
  const SENDERS = Number(args.senders);
  const WARMUP = Number(args.warmup);

  const { wharfNode } = await import('./lib/peers.mjs');
  const { table } = await import('./lib/load.mjs');
  const { devSigning } = await import('./lib/signing.mjs');
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');

  const node = wharfNode({
    port: Number(args.port),
    blockTime: 2,
    extra: ['--flashblock-interval', '200', '--accounts', String(SENDERS)],
  });
  process.on('exit', () => node.child.kill('SIGKILL'));
  await node.ready();

  const { common, keys } = devSigning(SENDERS);
  const nonces = new Array(SENDERS).fill(0);
  let next = 0;
  const sign = (count) => {
    const raws = [];
    for (let i = 0; i < count; i++, next++) {
      const s = next % SENDERS;
      const tx = createFeeMarket1559Tx(
        {
          nonce: nonces[s]++,
          to: `0x${(0x2000 + next).toString(16).padStart(40, '0')}`,
          value: 1n,
          gasLimit: 21000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1n,
          chainId: 31337n,
        },
        { common },
      ).sign(keys[s]);
      raws.push(`0x${Buffer.from(tx.serialize()).toString('hex')}`);
    }
    return raws;
  };

  const rows = [];
  const phaseRows = [];
  for (const rate of RATES) {
    const n = rate * (SECONDS + WARMUP);
    process.stderr.write(`${rate}/s: signing ${n} transfers, then ${SECONDS + WARMUP} s of load...\n`);
    const raws = sign(n);
    await new Promise((r) => setTimeout(r, 2000));
    const worker = new Worker(new URL(import.meta.url), {
      workerData: {
        wsUrl: node.url.replace('http', 'ws'),
        raws,
        rate,
        connections: Number(args.connections),
      },
    });
    const out = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // The first WARMUP seconds (the JIT compiling the EVM's paths) are not counted.
    const measured = out.took.slice(rate * WARMUP);
    const ok = measured.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    const errors = Object.entries(out.errors)
      .map(([k, v]) => `${v}x ${k}`)
      .join('; ');
    const ph = phases(out, rate * WARMUP);
    phaseRows.push({
      rate: `${rate}/s`,
      flashblocks: ph.flashblocks,
      'lead p50': pct(ph.cutoffLead, 50).toFixed(1),
      'lead p90': pct(ph.cutoffLead, 90).toFixed(1),
      'spread p50': pct(ph.spread, 50).toFixed(1),
      'spread p90': pct(ph.spread, 90).toFixed(1),
      'spread max': (ph.spread.at(-1) ?? Number.NaN).toFixed(1),
    });
    rows.push({
      rate: `${rate}/s`,
      sent: `${n} in ${out.sendSeconds.toFixed(1)} s`,
      answered: ok.length,
      p50: pct(ok, 50).toFixed(1),
      p90: pct(ok, 90).toFixed(1),
      p99: pct(ok, 99).toFixed(1),
      max: (ok.at(-1) ?? Number.NaN).toFixed(1),
      errors: errors || '0',
    });
  }
  // Stopped, not killed: a CPU profile (WHARF_BENCH_PROF) is written on the way out.
  await node.stop();

  console.log('\neth_sendRawTransactionSync, request -> answer (ms), 2 s blocks, 200 ms flashblocks');
  console.log(table(rows, ['rate', 'sent', 'answered', 'p50', 'p90', 'p99', 'max', 'errors']));
  console.log('goal: p50 <= 130 ms, p99 <= 250 ms');
  console.log(
    '\nwhere it goes (ms): lead = per flashblock, from sending the newest transfer it took to its first answer;',
  );
  console.log("spread = per transfer, from its flashblock's first answer to its own");
  console.log(
    table(phaseRows, [
      'rate',
      'flashblocks',
      'lead p50',
      'lead p90',
      'spread p50',
      'spread p90',
      'spread max',
    ]),
  );
  const dir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, `send-sync-${Date.now()}.json`),
    JSON.stringify({ args, rows, phases: phaseRows }, null, 2),
  );
  process.exit(0);
}
