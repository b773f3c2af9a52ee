#!/usr/bin/env node
/**
 * Pre-confirmations under load (issue: 200 ms pre-confirmations). A wharf node (built CLI,
 * `wharf chain start`, 2 s blocks, 200 ms flashblocks) is offered signed transfers at a steady
 * rate from many senders over JSON-RPC WebSockets, from a worker thread so that sending never
 * delays the clock, and the /flashblocks stream is timestamped in a thread of its own. Prints:
 *   - submit-to-pending: eth_sendRawTransaction returning -> the flashblock carrying it (p50, p99)
 *   - flashblock interval and its deviation from the setting (p50, p99), flashblocks per block
 *   - block interval (index 0 to index 0) and late blocks (a seal more than one flashblock
 *     interval after its time), the node's seal time (GET /metrics)
 *   - the node's RSS: idle, after the first minute, at the end, and the growth in between (two
 *     samples, the least-squares line through all of them, and minute means)
 *
 *   npm run build && node bench/preconf.mjs [--rate 1000] [--seconds 30] [--senders 100]
 *                                           [--recipients 0 (fresh addresses) | N]
 *                                           [--data-dir-in /dev/shm (no disk under the journal)]
 *                                           [--keep-data-dir (the node killed -9 at the end, its
 *                                            data dir kept: for bench/restart.mjs)]
 * No peer runs this side by side: Anvil and Hardhat have no pre-confirmations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { levelDbWrites } from './lib/leveldb-log.mjs';
import { fetchMetrics, metricValue } from './lib/metrics.mjs';
import { preconfChartSvg } from './lib/preconf-chart.mjs';
import { fittedDrift, latencyPerSpan, leastSquares, meanPerSpan, percentile, spanFor } from './lib/stats.mjs';

const now = () => performance.timeOrigin + performance.now();
/** A block gas limit whose target (limit / 6) holds `rate` transfers/s in 2 s blocks, +25%. */
const gasLimitFor = (rate) => Math.max(60_000_000, Math.ceil(rate * 2 * 21_000 * 6 * 1.25));

/** How the node under test exited, once it has; undefined before it starts. */
let nodeExit;
/** Set once the run stops the node itself. */
let nodeStopping = false;
let nodeDeathReported = false;

/**
 * Whether the node under test exited on its own (within `waitMs`): if so, says so (the run has no
 * figures) and returns true.
 */
async function nodeDied(waitMs) {
  if (!nodeExit || nodeStopping) return false;
  const how = await Promise.race([nodeExit, new Promise((r) => setTimeout(r, waitMs, undefined))]);
  if (how === undefined || nodeStopping) return false;
  if (nodeDeathReported) return true;
  nodeDeathReported = true;
  process.stderr.write(
    `\nthe node under test exited during the run (${how}): no figures` +
      `${process.env.WHARF_BENCH_STDERR ? `; its stderr is in ${process.env.WHARF_BENCH_STDERR}` : ''}\n`,
  );
  return true;
}

/** Bytes per pre-signed transfer in the shared buffer: a length byte, then the raw transaction. */
const SLOT = 128;

if (!isMainThread && workerData.role === 'signer') {
  // Signing, before the run: transfers [from, to) into the shared buffer, one SLOT each. An hour
  // at 1,000/s is 3.6 million transfers: as hex strings in a heap they would take gigabytes.
  const { from, to, senders, recipients, sab } = workerData;
  const { devSigning, signTransfer } = await import('./lib/signing.mjs');
  const { keys } = devSigning(senders);
  const bytes = new Uint8Array(sab);
  const to20 = new Uint8Array(20);
  const view = new DataView(to20.buffer);
  for (let i = from; i < to; i++) {
    // 0x1000 + i (or + i mod recipients): fresh addresses, or a fixed set.
    view.setUint32(16, recipients > 0 ? 0x1000 + (i % recipients) : 0x1000 + i);
    const raw = signTransfer(
      {
        chainId: 31337n,
        nonce: Math.floor(i / senders),
        maxPriorityFeePerGas: 1n,
        maxFeePerGas: 100_000_000_000n,
        gasLimit: 21000n,
        to: to20,
        value: 1n,
      },
      keys[i % senders],
    );
    if (raw.length >= SLOT)
      throw new Error(`a transfer of ${raw.length} bytes does not fit a slot of ${SLOT}`);
    bytes[i * SLOT] = raw.length;
    bytes.set(raw, i * SLOT + 1);
    if ((i - from) % 50_000 === 0) parentPort.postMessage({ progress: i - from });
  }
  parentPort.postMessage({ done: true });
} else if (!isMainThread && workerData.role === 'receiver') {
  // The clock: a thread that only timestamps /flashblocks messages, so that nothing the main
  // thread does (joining the sender's answers, GC) delays an arrival. Each flashblock goes to the
  // main thread as it comes, with its transactions' hashes (the keys of its receipts).
  const fb = new WebSocket(workerData.url);
  fb.on('message', (d) => {
    const at = now();
    const m = JSON.parse(d.toString());
    parentPort.postMessage({
      at,
      index: m.index,
      block: Number(m.metadata.block_number),
      hashes: Object.keys(m.metadata.receipts ?? {}),
      count: m.diff.transactions.length,
    });
  });
  fb.once('open', () => parentPort.postMessage({ open: true }));
  parentPort.on('message', () => {
    fb.close();
    parentPort.close();
  });
} else if (!isMainThread) {
  // The sender: K connections, transaction i due at start + i / rate, each sender's in nonce order.
  // Answers go to the main thread in batches every 250 ms: [i, answered at, hash, error, sent at].
  const { wsUrl, sab, total, rate, connections } = workerData;
  const bytes = Buffer.from(sab);
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => {
      const ws = new WebSocket(wsUrl);
      return new Promise((resolve, reject) => {
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    }),
  );
  const sentAt = new Float64Array(total);
  let batch = [];
  const flush = () => {
    if (batch.length) parentPort.postMessage({ answers: batch });
    batch = [];
  };
  const flusher = setInterval(flush, 250);
  let outstanding = total;
  let done;
  const finished = new Promise((r) => {
    done = r;
  });
  for (const ws of sockets)
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      batch.push([m.id, now(), m.result ?? null, m.error?.message ?? null, sentAt[m.id]]);
      if (--outstanding === 0) done();
    });
  const t0 = now() + 50;
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    sentAt[i] = now();
    const raw = bytes.toString('hex', i * SLOT + 1, i * SLOT + 1 + bytes[i * SLOT]);
    sockets[i % connections].send(
      `{"jsonrpc":"2.0","id":${i},"method":"eth_sendRawTransaction","params":["0x${raw}"]}`,
    );
  }
  const sentUntil = now();
  const sendSeconds = (sentUntil - t0) / 1000;
  await finished;
  clearInterval(flusher);
  flush();
  for (const ws of sockets) ws.close();
  parentPort.postMessage({ sendSeconds, sentUntil });
} else {
  try {
    await main();
  } catch (e) {
    // A connection the dying node dropped can fail the run before its exit is seen: name the cause.
    if (await nodeDied(2000)) process.exit(1);
    throw e;
  }
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      rate: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '30' },
      senders: { type: 'string', default: '100' },
      connections: { type: 'string', default: '8' },
      recipients: { type: 'string', default: '0' },
      interval: { type: 'string', default: '200' },
      port: { type: 'string', default: '18645' },
      warmup: { type: 'string', default: '3' },
      // Seconds the node sits idle before the load (its idle RSS); default 60 from 10 minutes up.
      idle: { type: 'string' },
      // Seconds per point of the per-span series and the chart (default: a minute from 10 minutes up).
      span: { type: 'string' },
      // The RSS drift is fitted over the samples from this second on (default 300, or half a shorter run).
      'drift-from': { type: 'string' },
      // Where the node's data dir goes: the journal's O_DSYNC writes wait for this disk.
      'data-dir-in': { type: 'string' },
      // At the end the node is killed -9 (a crash) and its data dir kept: bench/restart.mjs times
      // a start on it.
      'keep-data-dir': { type: 'boolean', default: false },
    },
  });
  const RATE = Number(args.rate);
  const SECONDS = Number(args.seconds);
  const SENDERS = Number(args.senders);
  const INTERVAL = Number(args.interval);
  const RECIPIENTS = Number(args.recipients);
  // The first WARMUP seconds of load (the JIT compiling the EVM's paths) are not measured.
  const WARMUP = Number(args.warmup);
  const SKIP = RATE * WARMUP;
  const N = RATE * (SECONDS + WARMUP);
  const IDLE = Number(args.idle ?? (SECONDS >= 600 ? 60 : 2));
  const SPAN = Number(args.span ?? spanFor(SECONDS));
  const DRIFT_FROM = Number(args['drift-from'] ?? (SECONDS >= 600 ? 300 : Math.round(SECONDS / 2)));
  for (const [name, v] of Object.entries({
    rate: RATE,
    seconds: SECONDS,
    senders: SENDERS,
    idle: IDLE,
    span: SPAN,
  }))
    if (!(v > 0) && !(name === 'idle' && v === 0))
      throw new Error(`--${name} must be a positive number, not ${v}`);

  const { wharfNode } = await import('./lib/peers.mjs');

  // Sign everything first, on every core (signing is not what we measure), into one shared
  // buffer that the sender reads without a copy.
  const sab = new SharedArrayBuffer(N * SLOT);
  const signers = Math.max(1, Math.min(os.availableParallelism(), Math.ceil(N / 20_000)));
  process.stderr.write(`signing ${N} transfers from ${SENDERS} senders on ${signers} threads...\n`);
  const signStart = now();
  let signed = 0;
  await Promise.all(
    Array.from({ length: signers }, (_, w) => {
      const from = Math.floor((w * N) / signers);
      const to = Math.floor(((w + 1) * N) / signers);
      const signer = new Worker(new URL(import.meta.url), {
        workerData: { role: 'signer', from, to, senders: SENDERS, recipients: RECIPIENTS, sab },
      });
      let reported = 0;
      return new Promise((resolve, reject) => {
        signer.on('message', (m) => {
          if (m.done) return resolve();
          signed += m.progress - reported;
          reported = m.progress;
          if (w === 0 && N >= 200_000) process.stderr.write(`  ${Math.round((signed / N) * 100)}%\r`);
        });
        signer.once('error', reject);
      });
    }),
  );
  process.stderr.write(`signed in ${((now() - signStart) / 1000).toFixed(0)} s\n`);

  const node = wharfNode({
    port: Number(args.port),
    blockTime: 2,
    // A gas target the load stays under (the limit / 6, Base's elasticity): at the default 60M
    // (target 10M) 1,000 transfers/s use 42M a block, the base fee rises ~1.3% a block and passes
    // any fixed fee cap within the hour (it passed 100 gwei at minute 13).
    extra: [
      '--flashblock-interval',
      String(INTERVAL),
      '--accounts',
      String(SENDERS),
      '--gas-limit',
      String(gasLimitFor(RATE)),
    ],
    dataDir: args['data-dir-in'],
  });
  process.on('exit', () => node.child.kill('SIGKILL'));
  // A node that dies mid-run (out of memory, a crash, a probe that killed it) leaves the sender
  // waiting for answers that never come: say so and stop instead of hanging for the rest of the hour.
  nodeExit = new Promise((resolve) =>
    node.child.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)),
  );
  nodeExit.then(() => nodeDied(0)).then((died) => died && process.exit(1));
  await node.ready();
  const pid = node.child.pid;
  /** RSS in MB: all of it, the private (anonymous) part, and mapped files (LevelDB's tables). */
  const rssOf = () => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (name) => Number(status.match(new RegExp(`${name}:\\s+(\\d+) kB`))?.[1]) / 1024;
      return { mb: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
    } catch {
      return { mb: Number.NaN, anon: Number.NaN, file: Number.NaN };
    }
  };

  // Flashblocks as the receiver timestamps them, and the join of their transactions with the
  // sender's answers (either may come first): hash -> [i, answered at, sent at] until its
  // flashblock arrives, hash -> arrival until its answer does. Both stay as small as what is in
  // flight, so an hour costs what 30 s does, apart from the per-transaction figures below.
  const flashblocks = []; // { at, index, block }
  const answered = new Map();
  const early = new Map();
  let seen = 0;
  let accepted = 0;
  // Per measured transaction: answered at (ms since the epoch), submit-to-pending, send-to-pending.
  const measured = N - SKIP;
  const latAt = new Float64Array(measured);
  const latMs = new Float64Array(measured);
  const sendMs = new Float64Array(measured);
  let joined = 0;
  const roundTrips = new Float64Array(measured);
  let roundTripCount = 0;
  const refused = new Map();
  let measuredFrom = Number.POSITIVE_INFINITY; // when the first measured transaction returned
  // Submit-to-pending over 250 ms, by the index of the flashblock that carried the transaction.
  const slowByIndex = [];
  const join = (i, answeredAt, sent, at, index) => {
    if (i < SKIP) return;
    latAt[joined] = answeredAt;
    latMs[joined] = Math.max(0, at - answeredAt);
    if (latMs[joined] > 250) slowByIndex[index] = (slowByIndex[index] ?? 0) + 1;
    sendMs[joined] = Math.max(0, at - sent);
    joined++;
  };

  const receiver = new Worker(new URL(import.meta.url), {
    workerData: { role: 'receiver', url: `${node.url.replace('http', 'ws')}/flashblocks` },
  });
  let receiverFailed;
  receiver.on('error', (e) => {
    receiverFailed = e;
  });
  await new Promise((resolve, reject) => {
    receiver.once('message', resolve);
    receiver.once('error', reject);
  });
  receiver.on('message', (m) => {
    flashblocks.push({ at: m.at, index: m.index, block: m.block });
    seen += m.count;
    for (const h of m.hashes) {
      const a = answered.get(h);
      if (a) {
        answered.delete(h);
        join(a[0], a[1], a[2], m.at, m.index);
      } else early.set(h, [m.at, m.index]);
    }
  });

  // Idle before the load: the RSS the node settles at with nothing to do (issue 33: < 150 MB).
  process.stderr.write(`node idle for ${IDLE} s...\n`);
  await new Promise((r) => setTimeout(r, IDLE * 1000));
  const rss = [{ t: 0, ...rssOf() }];
  const cpuAtStart = machineCpu();
  const ioAtStart = processIo(pid);
  const storeAtStart = await storeFigures(node.url);
  const levelDbAtStart = levelDbFigures(node.dataDir);
  const cpuOfNodeAtStart = processCpu(pid);
  const start = now();
  const rssTimer = setInterval(() => rss.push({ t: (now() - start) / 1000, ...rssOf() }), 1000);
  // The node's own view of its memory and GC (GET /metrics), every 10 s: what grows, and the pauses.
  const heap = [];
  const heapTimer = setInterval(async () => {
    const t = (now() - start) / 1000;
    try {
      const text = await fetchMetrics(node.url);
      // The main thread's CPU (its task's stat) beside the whole process's: what the loop spends.
      heap.push({
        t,
        ...processFigures(text),
        mainCpuS: processCpu(`${pid}/task/${pid}`),
        cpuS: processCpu(pid),
        diskWrittenBytes: processIo(pid)?.write_bytes,
      });
    } catch {}
  }, 10_000);
  process.stderr.write(
    `offering ${RATE}/s for ${WARMUP} s of warm-up, then ${SECONDS} s measured (data dir in ${args['data-dir-in'] ?? 'the OS temp folder'})...\n`,
  );
  const worker = new Worker(new URL(import.meta.url), {
    workerData: {
      wsUrl: node.url.replace('http', 'ws'),
      sab,
      total: N,
      rate: RATE,
      connections: Number(args.connections),
    },
  });
  const { sendSeconds, sentUntil } = await new Promise((resolve, reject) => {
    worker.on('message', (m) => {
      if (!m.answers) return resolve(m);
      for (const [i, t, hash, err, sent] of m.answers) {
        if (err) {
          refused.set(err, (refused.get(err) ?? 0) + 1);
          continue;
        }
        accepted++;
        if (i >= SKIP) {
          roundTrips[roundTripCount++] = t - sent;
          measuredFrom = Math.min(measuredFrom, t);
        }
        const at = early.get(hash);
        if (at !== undefined) {
          early.delete(hash);
          join(i, t, sent, at[0], at[1]);
        } else answered.set(hash, [i, t, sent]);
      }
    });
    worker.once('error', reject);
  });
  const deadline = now() + 15_000;
  while (seen < accepted && now() < deadline && !receiverFailed) await new Promise((r) => setTimeout(r, 100));
  if (receiverFailed) throw receiverFailed;
  await new Promise((r) => setTimeout(r, 2500)); // one more block for the interval figures
  clearInterval(rssTimer);
  const cpuAtEnd = machineCpu();
  const ioAtEnd = processIo(pid);
  const storeAtEnd = await storeFigures(node.url);
  const levelDbAtEnd = levelDbFigures(node.dataDir);
  const cpuOfNodeAtEnd = processCpu(pid);
  const ioSeconds = (now() - start) / 1000;
  clearInterval(heapTimer);
  receiver.postMessage('close');
  if (process.env.DUMP) fs.writeFileSync(process.env.DUMP, JSON.stringify(flashblocks));

  const metrics = await fetchMetrics(node.url);
  nodeStopping = true;
  if (args['keep-data-dir']) {
    await new Promise((r) => {
      node.child.once('exit', r);
      node.child.kill('SIGKILL');
    });
    console.log(`data dir kept (the node killed -9 as the load ended): ${node.dataDir}`);
  } else await node.stop();

  const pct = percentile;
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
  // Submit-to-pending (`lat`, from the answer) and send-to-pending (`sendLat`, from the request
  // leaving the client: what a wallet waits in all, the request's own trip included; the node
  // holds requests while a flashblock is due, and they go to the next one either way).
  const lat = latMs.slice(0, joined).sort();
  const sendLat = sendMs.slice(0, joined).sort();
  const rt = roundTrips.slice(0, roundTripCount).sort();
  // Where in the run the slow ones fall: over 250 ms (the goal's p99), per 5 s of the measured
  // window (per span past 10 minutes: an hour in 5 s steps is 720 numbers).
  const SLOW_SPAN = SECONDS > 600 ? SPAN : 5;
  const slowBySpan = new Array(Math.ceil(SECONDS / SLOW_SPAN)).fill(0);
  for (let k = 0; k < joined; k++)
    if (latMs[k] > 250)
      slowBySpan[
        Math.min(slowBySpan.length - 1, Math.floor((latAt[k] - measuredFrom) / (SLOW_SPAN * 1000)))
      ]++;
  // The interval is between consecutive pre-confirmations (index >= 1), across block
  // boundaries too: the last of block n and the first of block n+1 are one interval apart. Index 0
  // (the next block opened, no transactions) follows the seal; its lag is the seal's figure.
  const gaps = [];
  const blockStarts = [];
  const sealLag = [];
  let prev;
  let last;
  for (let i = 0; i < flashblocks.length; i++) {
    const b = flashblocks[i];
    // Intervals are measured under load: from the first measured transaction to the last sent.
    if (b.at < measuredFrom || b.at > sentUntil) continue;
    if (b.index === 0) {
      blockStarts.push(b.at);
      if (last && last.block === b.block - 1) sealLag.push(b.at - last.at);
    } else {
      const contiguous =
        prev &&
        ((b.block === prev.block && b.index === prev.index + 1) ||
          (b.block === prev.block + 1 && b.index === 1));
      if (contiguous) gaps.push(b.at - prev.at);
      prev = b;
    }
    last = b;
  }
  sealLag.sort((a, b) => a - b);
  const dev = gaps.map((g) => Math.abs(g - INTERVAL)).sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  const blockGaps = blockStarts.slice(1).map((t, i) => t - blockStarts[i]);
  const late = blockGaps.filter((g) => g > 2000 + INTERVAL).length;
  const perBlock = new Map();
  for (const x of flashblocks) perBlock.set(x.block, Math.max(perBlock.get(x.block) ?? 0, x.index));
  const whole = [...perBlock.values()].slice(1, -1);
  const metric = (name) => metricValue(metrics, name);
  const sealMean = (metric('wharf_seal_seconds_sum') / metric('wharf_seal_seconds_count')) * 1000;
  const afterMinute = rss.filter((r) => r.t >= 60 + WARMUP);
  const growth =
    afterMinute.length > 1 ? afterMinute[afterMinute.length - 1].mb / afterMinute[0].mb - 1 : Number.NaN;
  // One sample swings +-10% with the GC's phase (the old generation grows to 3x its live size
  // between full GCs): the trend is the mean of the second minute against the mean of the last.
  const mean = (xs) => xs.reduce((a, r) => a + r.mb, 0) / xs.length;
  const secondMinute = rss.filter((r) => r.t >= 60 + WARMUP && r.t < 120 + WARMUP);
  const lastMinute = rss.filter((r) => r.t >= rss[rss.length - 1].t - 60);
  const trend =
    SECONDS >= 180 && secondMinute.length && lastMinute.length
      ? { from: mean(secondMinute), to: mean(lastMinute) }
      : undefined;
  // And the growth of the least-squares line through every sample after the first minute, from
  // its value at the first minute to its value at the end: a drift, whatever the GC's phase.
  const fit = SECONDS >= 180 && afterMinute.length > 2 ? leastSquares(afterMinute) : undefined;
  // Where that drift is: V8's heap (committed: its live size plus the GC's slack), the private
  // memory outside it (malloc: LevelDB, buffers' backing stores), and mapped files (LevelDB's tables).
  const heapAfterMinute = heap.filter((r) => r.t >= 60 + WARMUP && Number.isFinite(r.heapTotal));
  const heapNear = (t) =>
    heapAfterMinute.reduce(
      (best, r) => (Math.abs(r.t - t) < Math.abs(best.t - t) ? r : best),
      heapAfterMinute[0],
    );
  const split =
    fit && heapAfterMinute.length > 2
      ? {
          heap: leastSquares(heapAfterMinute.map((r) => ({ t: r.t, mb: r.heapTotal }))),
          native: leastSquares(afterMinute.map((r) => ({ t: r.t, mb: r.anon - heapNear(r.t).heapTotal }))),
          file: leastSquares(afterMinute.map((r) => ({ t: r.t, mb: r.file }))),
        }
      : undefined;

  if (refused.size) console.log('refused:', Object.fromEntries(refused));
  const lines = [
    `${N - SKIP} transfers offered at ${RATE}/s for ${SECONDS} s after ${WARMUP} s of warm-up, from ${SENDERS} senders (all sent in ${sendSeconds.toFixed(1)} s); ${roundTripCount} accepted, ${lat.length} pre-confirmed`,
    `submit-to-pending: p50 ${f(pct(lat, 50))} ms, p99 ${f(pct(lat, 99))} ms, max ${f(lat[lat.length - 1])} ms`,
    `send-to-pending (from the request leaving the client): p50 ${f(pct(sendLat, 50))} ms, p99 ${f(pct(sendLat, 99))} ms; eth_sendRawTransaction round trip p50 ${f(pct(rt, 50))} ms, p99 ${f(pct(rt, 99))} ms`,
    `flashblock interval: p50 ${f(pct(gaps, 50))} ms, p99 ${f(pct(gaps, 99))} ms; deviation from ${INTERVAL} ms: p50 ${f(pct(dev, 50))} ms, p99 ${f(pct(dev, 99))} ms`,
    `flashblocks per block: ${whole.length ? `${Math.min(...whole)}..${Math.max(...whole)}` : 'n/a'} over ${whole.length} whole blocks`,
    `blocks: interval max ${f(Math.max(...blockGaps))} ms, late (> ${2000 + INTERVAL} ms) ${late} of ${blockGaps.length}; seal mean ${f(sealMean)} ms (node), last flashblock to next block's index 0 p50 ${f(pct(sealLag, 50))} ms, p99 ${f(pct(sealLag, 99))} ms`,
    `node RSS: idle ${f(rss[0].mb)} MB, max ${f(Math.max(...rss.map((r) => r.mb)))} MB, end ${f(rss[rss.length - 1].mb)} MB` +
      (afterMinute.length > 1
        ? `; after the first minute ${f(afterMinute[0].mb)} -> ${f(afterMinute[afterMinute.length - 1].mb)} MB (${(growth * 100).toFixed(1)}%)`
        : '') +
      (fit
        ? `; fitted line from the first minute to the end ${f(fit.from)} -> ${f(fit.to)} MB (${((fit.to / fit.from - 1) * 100).toFixed(1)}%)`
        : '') +
      (trend
        ? `; mean of the second minute ${f(trend.from)} -> of the last ${f(trend.to)} MB (${((trend.to / trend.from - 1) * 100).toFixed(1)}%)`
        : ''),
  ];
  if (split)
    lines.push(
      `  that line's drift, by part (fitted the same way): V8 heap committed ${f(split.heap.from)} -> ${f(split.heap.to)} MB, private memory outside it ${f(split.native.from)} -> ${f(split.native.to)} MB, mapped files ${f(split.file.from)} -> ${f(split.file.to)} MB`,
    );
  const heapPerMinute = heap.filter((r, i) => i > 0 && Math.floor(r.t / 60) > Math.floor(heap[i - 1].t / 60));
  if (heapPerMinute.length)
    lines.push(
      `node heap each minute (used/total/external MB; major, minor GCs: count/total ms): ${heapPerMinute
        .map(
          (r) =>
            `${f(r.heapUsed)}/${f(r.heapTotal)}/${f(r.external)} ${r.majorCount}/${f(r.majorMs)} ${r.minorCount}/${f(r.minorMs)}`,
        )
        .join(', ')}`,
    );
  const perMinute = rss.filter((r, i) => i > 0 && Math.floor(r.t / 60) > Math.floor(rss[i - 1].t / 60));
  if (perMinute.length) {
    lines.push(`node RSS each minute: ${perMinute.map((r) => f(r.mb)).join(', ')} MB`);
    lines.push(
      `  of which private (anon) / mapped files: ${perMinute.map((r) => `${f(r.anon)}/${f(r.file)}`).join(', ')} MB`,
    );
  }
  // Which pre-confirmations were more than 20 ms off: the first of a block (after the seal) or others.
  const off = { first: 0, other: 0 };
  const offByIndex = [];
  for (let i = 1; i < flashblocks.length; i++) {
    const [a, b] = [flashblocks[i - 1], flashblocks[i]];
    if (b.at < measuredFrom || b.at > sentUntil || b.index === 0) continue;
    const p = b.index === 1 ? flashblocks[i - 2] : a;
    if (!p || Math.abs(b.at - p.at - INTERVAL) <= 20) continue;
    off[b.index === 1 ? 'first' : 'other']++;
    offByIndex[b.index] = (offByIndex[b.index] ?? 0) + 1;
  }
  const byIndex = (counts) =>
    Array.from(counts, (c, k) => `${k}: ${c ?? 0}`)
      .slice(1)
      .join(', ');
  lines.push(
    `pre-confirmations more than 20 ms off the interval: ${off.first} first of a block, ${off.other} others (by index ${byIndex(offByIndex)})`,
    `submit-to-pending over 250 ms, by the index of the flashblock carrying it: ${byIndex(slowByIndex)}`,
  );
  lines.push(
    `submit-to-pending over 250 ms, per ${SLOW_SPAN} s of the measured window: ${slowBySpan.join(', ')}`,
  );
  /** A histogram of the node's /metrics as "<=le: n" pairs (cumulative). */
  // prom-client writes `le` first and the histogram's own labels after it (`{le="0.1",kind="major"}`):
  // a bucket line is matched by its name and `label` wherever it stands.
  const histogram = (name, label = '') => {
    const re = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\d+)$`, 'gm');
    return [...metrics.matchAll(re)]
      .filter(([, labels]) => !label || labels.split(',').includes(label))
      .map(([, labels, n]) => `<=${/le="([^"]+)"/.exec(labels)[1]}: ${n}`)
      .join(', ');
  };
  lines.push(`node flashblock build time (s, cumulative): ${histogram('wharf_flashblock_build_seconds')}`);
  // The node's own clock: separates a late publication from a late arrival at this client.
  lines.push(
    `node flashblock published after its deadline (s, cumulative): ${histogram('wharf_flashblock_lateness_seconds')}`,
  );
  lines.push(`node journal write, O_DSYNC (s, cumulative): ${histogram('wharf_journal_append_seconds')}`);
  // The node's own submit-to-pending (pool arrival to publication, warm-up included): what the
  // builder adds, without the RPC answer's way back or this client's clocks.
  lines.push(
    `node pool arrival to publication (s, cumulative): ${histogram('wharf_submit_to_pending_seconds')}`,
  );
  lines.push(
    `node journal file waits for an earlier block on disk, behind the seal (s, cumulative): ${histogram('wharf_seal_durable_wait_seconds')}`,
  );
  // Builds with the subtree worker's wait counted (decision 0690); older ones print nothing here.
  const makeWait = histogram('wharf_state_make_wait_seconds');
  if (makeWait) lines.push(`node wait for nodes made in the subtree worker (s, cumulative): ${makeWait}`);
  const proc = processFigures(metrics);
  lines.push(
    `node event-loop delay since start: p99 ${f(proc.loopP99Ms)} ms, max ${f(proc.loopMaxMs)} ms (10 ms resolution)`,
  );
  lines.push(
    `node major GC pauses (s, cumulative): ${histogram('nodejs_gc_duration_seconds', 'kind="major"')}`,
  );
  lines.push(
    `node minor GC pauses (s, cumulative): ${histogram('nodejs_gc_duration_seconds', 'kind="minor"')}`,
  );
  // A flashblock is shown only once its journal write is on disk: a disk that stalls (iowait)
  // delays it, and a host that takes the CPU away (steal) delays everything.
  if (cpuAtStart && cpuAtEnd) {
    const d = cpuAtEnd.map((v, i) => v - cpuAtStart[i]);
    const total = d.reduce((a, b) => a + b, 0);
    const share = (i) => `${((100 * d[i]) / total).toFixed(1)}%`;
    lines.push(
      `machine during the run (/proc/stat): iowait ${share(4)}, steal ${share(7)}, idle ${share(3)}`,
    );
  }
  // The node's own writes share the disk with its journal: what it sends to the block layer.
  if (ioAtStart && ioAtEnd) {
    const mbps = (k) => ((ioAtEnd[k] - ioAtStart[k]) / 1024 / 1024 / ioSeconds).toFixed(1);
    lines.push(
      `node disk I/O (/proc/pid/io): wrote ${mbps('write_bytes')} MB/s, read ${mbps('read_bytes')} MB/s`,
    );
  }
  // Write amplification: what reached the disk per sealed block, against the state the block
  // changed (flat-state keys and values, wharf_state_diff_bytes_total) and its batch's bytes.
  let diskWrittenPerBlockBytes;
  let stateDiffPerBlockBytes;
  let batchPerBlockBytes;
  let diskBreakdownPerBlockBytes;
  // A counter the node has not shown yet at the start (no block sealed before the load) is 0.
  const since = (k) => storeAtEnd[k] - (Number.isNaN(storeAtStart[k]) ? 0 : storeAtStart[k]);
  if (ioAtStart && ioAtEnd && storeAtStart && storeAtEnd && since('blocks') > 0) {
    const blocks = since('blocks');
    diskWrittenPerBlockBytes = Math.round((ioAtEnd.write_bytes - ioAtStart.write_bytes) / blocks);
    const per = (k) => since(k) / blocks;
    const kb = (x) => `${(x / 1024).toFixed(1)} KB`;
    const diff = per('stateDiffBytes');
    stateDiffPerBlockBytes = Math.round(diff);
    batchPerBlockBytes = Math.round(per('batchBytes'));
    lines.push(
      `node disk written per sealed block: ${kb(diskWrittenPerBlockBytes)} over ${blocks} blocks; the block's state diff ${kb(diff)} (${diff ? (diskWrittenPerBlockBytes / diff).toFixed(1) : '-'}x), its LevelDB batch ${kb(per('batchBytes'))}`,
    );
    // Where it goes, per block (logical bytes handed to each writer; the disk's figure above
    // includes what LevelDB writes again: its log, then compactions).
    if (Number.isFinite(per('blockBodyBytes'))) {
      const body = per('blockBodyBytes');
      const record = per('diffRecordBytes');
      const bodyFiles = per('bodyFileBytes') || 0;
      // The leaves' runs are files of their own (0670); before, the leaves went to LevelDB.
      const leafMerge = per('leafMergeBytes');
      const leafFiles = Number.isFinite(leafMerge) ? per('leafFlushBytes') + leafMerge : 0;
      diskBreakdownPerBlockBytes = {
        journal: Math.round(per('journalBytes')),
        blockBody: Math.round(body),
        flatState: Math.round(per('batchBytes') - body - record),
        diffRecord: Math.round(record),
        trieFlush: Math.round(per('trieFlushBytes')),
        leafFlush: Math.round(per('leafFlushBytes') || 0),
        leafMerge: Math.round(leafMerge || 0),
        bodyFiles: Math.round(bodyFiles),
        levelDbOnDisk: Math.round(diskWrittenPerBlockBytes - per('journalBytes') - bodyFiles - leafFiles),
      };
      const d = diskBreakdownPerBlockBytes;
      lines.push(
        `  handed to the disk per block: flashblock journal ${kb(d.journal)}; LevelDB: block+receipts+indexes ${kb(d.blockBody)}, flat state ${kb(d.flatState)}, forward state diff ${kb(d.diffRecord)}, trie nodes (merged flushes) ${kb(d.trieFlush)}; the disk layer's leaves (merged flushes; their own runs from decision 0670, LevelDB's keys before) ${kb(d.leafFlush)}, runs merged ${kb(d.leafMerge)}; block body files ${kb(d.bodyFiles)}; LevelDB and the pool journal on disk (disk written - journal - body files - leaf runs) ${kb(d.levelDbOnDisk)}`,
      );
      // Which database LevelDB's part is, and how much of it its compactions (its LOG files).
      const tables = (db, k) => Math.round((levelDbAtEnd[db][k] - levelDbAtStart[db][k]) / blocks);
      d.levelDbTables = {
        chainFlushed: tables('chain', 'flushed'),
        chainCompacted: tables('chain', 'compacted'),
        trieFlushed: tables('trie', 'flushed'),
        trieCompacted: tables('trie', 'compacted'),
      };
      const ldb = (db, k) => kb(tables(db, k));
      lines.push(
        `  LevelDB's tables written per block (its LOG): chain ${ldb('chain', 'flushed')} from memtables + ${ldb('chain', 'compacted')} by compactions; chain-trie ${ldb('trie', 'flushed')} + ${ldb('trie', 'compacted')} (the rest of its part is its logs)`,
      );
    }
  }
  // Whether the node keeps up is a question of its CPU time: its main thread can use one core.
  if (cpuOfNodeAtStart !== undefined && cpuOfNodeAtEnd !== undefined) {
    const s = cpuOfNodeAtEnd - cpuOfNodeAtStart;
    lines.push(
      `node CPU time (/proc/pid/stat, all its threads): ${s.toFixed(1)} s, ${((100 * s) / ioSeconds).toFixed(0)}% of one core`,
    );
  }
  for (const l of lines) console.log(l);

  // The series per span (a minute over 10 minutes or more), the fitted RSS drift after the
  // settling time, the chart of both, and the issue's figures together at the end.
  const latencyBySpan = latencyPerSpan(
    latAt.subarray(0, joined).map((t) => (t - start) / 1000),
    latMs,
    joined,
    SPAN,
  );
  const rssBySpan = meanPerSpan(rss.slice(1), SPAN, 'mb');
  const anonBySpan = meanPerSpan(rss.slice(1), SPAN, 'anon');
  const fileBySpan = meanPerSpan(rss.slice(1), SPAN, 'file');
  const heapBySpan = meanPerSpan(heap, SPAN, 'heapTotal');
  const drift = fittedDrift(rss.slice(1), DRIFT_FROM);
  // The same line through each part: where a drift is (V8's heap, the private memory outside it,
  // mapped files). "Outside" pairs each RSS sample with the nearest /metrics heap sample.
  const heapSamples = heap.filter((r) => Number.isFinite(r.heapTotal));
  const heapNearest = (t) =>
    heapSamples.reduce((best, r) => (Math.abs(r.t - t) < Math.abs(best.t - t) ? r : best), heapSamples[0]);
  const driftParts = drift && {
    heap: fittedDrift(heapSamples, DRIFT_FROM, 'heapTotal'),
    outsideHeap: heapSamples.length
      ? fittedDrift(
          rss.slice(1).map((r) => ({ t: r.t, mb: r.anon - heapNearest(r.t).heapTotal })),
          DRIFT_FROM,
        )
      : undefined,
    file: fittedDrift(rss.slice(1), DRIFT_FROM, 'file'),
  };
  const mbLine = (d) => (d ? `${f(d.startMb)} -> ${f(d.endMb)} MB` : 'n/a');
  console.log(
    `per ${SPAN} s (from the load's start): submit-to-pending p50/p99 ms ${latencyBySpan
      .map((r) => `${f(r.p50)}/${f(r.p99)}`)
      .join(', ')}`,
  );
  console.log(`per ${SPAN} s: node RSS mean MB ${rssBySpan.map((r) => f(r.mean)).join(', ')}`);
  // Per minute, per 1,000 transfers pre-confirmed (the 10 s /metrics samples): what the node reads
  // from LevelDB and its main thread's CPU, counts the machine's other load moves little, and what
  // it writes to the disk (half a block's at 1,000/s: how the disk written grows with the state).
  const readsPerMinute = [];
  const byTime = [...heapSamples].sort((x, y) => x.t - y.t);
  for (let m = 0; ; m++) {
    const a = byTime.find((r) => r.t >= m * 60);
    const b = byTime.findLast((r) => r.t <= (m + 1) * 60);
    if (!a || !b || b.t - a.t < 30 || !(b.txs > a.txs)) break;
    const per = (k) => ((b[k] - a[k]) / (b.txs - a.txs)) * 1000;
    readsPerMinute.push(
      `${m}: ${f(per('leveldbReads'))} getMany, ${f(per('leveldbAccountKeys'))} account + ${f(per('leveldbTrieNodeKeys'))} trie-node keys, ${f(per('nodesMade'))} nodes made (${f(per('nodesMadeOnLoop'))} on the event loop), ${f(per('mainCpuS') * 1000)} ms main-thread CPU, ${f(per('diskWrittenBytes') / 1024)} KB written to disk`,
    );
  }
  if (readsPerMinute.length) console.log(`per minute, per 1,000 transfers: ${readsPerMinute.join('; ')}`);

  const out = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(out, { recursive: true });
  const stamp = Date.now();
  const chartFile = path.join(out, `preconf-${stamp}.svg`);
  fs.writeFileSync(
    chartFile,
    preconfChartSvg({
      span: SPAN,
      latency: latencyBySpan,
      rss: rssBySpan,
      anon: anonBySpan,
      file: fileBySpan,
      heap: heapBySpan,
      drift,
      rate: RATE,
      title: `wharf pre-confirmations: ${RATE} transfers/s for ${SECONDS} s (${new Date(start).toISOString().slice(0, 16)}Z, ${os.hostname()}, ${os.availableParallelism()} cores)`,
    }),
  );
  const goal = (ok) => (ok ? 'meets' : 'misses');
  const ratio =
    diskWrittenPerBlockBytes && stateDiffPerBlockBytes
      ? diskWrittenPerBlockBytes / stateDiffPerBlockBytes
      : Number.NaN;
  const summary = [
    `figures (issue 33 goals):`,
    `  submit-to-pending p99 ${f(pct(lat, 99))} ms (goal <= 250: ${goal(pct(lat, 99) <= 250)})`,
    `  late blocks ${late} of ${blockGaps.length} (goal 0: ${goal(late === 0)})`,
    `  flashblock interval deviation p99 ${f(pct(dev, 99))} ms (goal <= 20: ${goal(pct(dev, 99) <= 20)})`,
    drift
      ? `  RSS fitted drift after ${DRIFT_FROM} s: ${mbLine(drift)} (${drift.percent >= 0 ? '+' : ''}${drift.percent.toFixed(1)}%, goal <= 5%: ${goal(drift.percent <= 5)}); by part: V8 heap committed ${mbLine(driftParts.heap)}, private outside it ${mbLine(driftParts.outsideHeap)}, mapped files ${mbLine(driftParts.file)}`
      : `  RSS fitted drift after ${DRIFT_FROM} s: n/a (fewer than 3 samples after it)`,
    `  idle RSS ${f(rss[0].mb)} MB after ${IDLE} s idle (goal < 150: ${goal(rss[0].mb < 150)})`,
    `  disk written per sealed block ${diskWrittenPerBlockBytes === undefined ? 'n/a' : `${f(diskWrittenPerBlockBytes / 1024)} KB`}, state diff ${stateDiffPerBlockBytes === undefined ? 'n/a' : `${f(stateDiffPerBlockBytes / 1024)} KB`} (${f(ratio)}x, goal <= 3x: ${goal(ratio <= 3)})`,
    `  chart: ${path.relative(process.cwd(), chartFile)}`,
  ];
  // Refusals (a full pool) mean the node fell behind the offered rate; with one sender's nonces
  // then gapped, the rest of the run is a lighter load than the command line says.
  if (refused.size)
    summary.push(
      `  WARNING: ${[...refused.values()].reduce((a, b) => a + b, 0)} transfers refused (${[...refused.keys()].join('; ')}): the node did not keep up with ${RATE}/s, so these figures are not at that rate`,
    );
  for (const l of summary) console.log(l);
  fs.writeFileSync(
    path.join(out, `preconf-${stamp}.json`),
    JSON.stringify(
      {
        rate: RATE,
        seconds: SECONDS,
        senders: SENDERS,
        submitToPendingMs: { p50: pct(lat, 50), p99: pct(lat, 99) },
        flashblockDeviationMs: { p50: pct(dev, 50), p99: pct(dev, 99) },
        lateBlocks: late,
        sealMeanMs: sealMean,
        rssMb: rss,
        heap,
        diskWrittenPerBlockBytes,
        // Added with the hour run's chart (issue 33); the fields above stay as they were.
        stateDiffPerBlockBytes,
        batchPerBlockBytes,
        // Added with path-keyed trie storage (decision 0211): the bytes per block by writer.
        diskBreakdownPerBlockBytes,
        idleSeconds: IDLE,
        idleRssMb: rss[0].mb,
        rssDrift: drift ? { ...drift, parts: driftParts } : null,
        spanSeconds: SPAN,
        submitToPendingPerSpanMs: latencyBySpan,
        rssPerSpanMb: rssBySpan.map((r, i) => ({
          ...r,
          anon: anonBySpan[i]?.mean ?? null,
          file: fileBySpan[i]?.mean ?? null,
        })),
        chart: path.basename(chartFile),
      },
      null,
      2,
    ),
  );
}

/** The machine's CPU time so far (user, nice, system, idle, iowait, irq, softirq, steal), Linux only. */
function machineCpu() {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    return line.trim().split(/\s+/).slice(1, 9).map(Number);
  } catch {
    return undefined;
  }
}

/** Sealed blocks and the bytes of their state diffs and batches so far, from the node's /metrics. */
async function storeFigures(url) {
  try {
    const text = await fetchMetrics(url);
    const v = (name) => metricValue(text, name);
    return {
      blocks: v('wharf_blocks_sealed_total'),
      stateDiffBytes: v('wharf_state_diff_bytes_total'),
      batchBytes: v('wharf_block_batch_bytes_total'),
      // Builds with path-keyed trie storage (decision 0211) count the parts; older ones: NaN.
      blockBodyBytes: v('wharf_block_body_bytes_total'),
      diffRecordBytes: v('wharf_state_diff_record_bytes_total'),
      trieFlushBytes: v('wharf_state_trie_flush_bytes_total'),
      // Builds whose disk layer keeps leaves (decision 0650); older ones: NaN, counted as 0.
      leafFlushBytes: v('wharf_state_leaf_flush_bytes_total'),
      // Builds whose leaves are runs of their own (decision 0670): files, not LevelDB's; older: NaN.
      leafMergeBytes: v('wharf_state_leaf_merge_bytes_total'),
      journalBytes: v('wharf_flashblock_journal_bytes_total'),
      // Builds with the body files (decision 0491); older ones: NaN, counted as 0.
      bodyFileBytes: v('wharf_block_body_file_bytes_total'),
    };
  } catch {
    return undefined;
  }
}

/** A process's I/O counters (bytes), Linux only. */
/** The process's CPU time so far, user + system, all threads (s). */
function processCpu(pid) {
  try {
    // Fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
    const rest = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return undefined;
  }
}

/** What the node's two LevelDB databases wrote into tables so far (lib/leveldb-log.mjs). */
function levelDbFigures(dataDir) {
  return {
    chain: levelDbWrites(path.join(dataDir, 'chain')),
    trie: levelDbWrites(path.join(dataDir, 'chain-trie')),
  };
}

function processIo(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    return Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((l) => [l.split(':')[0], Number(l.split(':')[1])]),
    );
  } catch {
    return undefined;
  }
}

/** Memory and GC figures from the node's /metrics text (MB, ms). */
function processFigures(text) {
  const get = (name) => metricValue(text, name);
  const mb = (x) => x / 1024 / 1024;
  return {
    heapUsed: mb(get('nodejs_heap_size_used_bytes')),
    heapTotal: mb(get('nodejs_heap_size_total_bytes')),
    external: mb(get('nodejs_external_memory_bytes')),
    majorCount: get('nodejs_gc_duration_seconds_count{kind="major"}') || 0,
    majorMs: (get('nodejs_gc_duration_seconds_sum{kind="major"}') || 0) * 1000,
    minorCount: get('nodejs_gc_duration_seconds_count{kind="minor"}') || 0,
    minorMs: (get('nodejs_gc_duration_seconds_sum{kind="minor"}') || 0) * 1000,
    loopP99Ms: get('nodejs_eventloop_lag_p99_seconds') * 1000,
    loopMaxMs: get('nodejs_eventloop_lag_max_seconds') * 1000,
    // Transactions pre-confirmed so far: the figures below per transaction.
    txs: get('wharf_flashblock_transactions_sum'),
    // LevelDB reads so far: getMany calls, and their keys by kind (flat accounts, trie nodes).
    leveldbReads: get('wharf_leveldb_reads_total'),
    leveldbAccountKeys: get('wharf_leveldb_read_keys_total{kind="account"}'),
    leveldbTrieNodeKeys: get('wharf_leveldb_read_keys_total{kind="trie_node"}'),
    nodesMade: get('wharf_state_nodes_made_total') || 0,
    // Builds with the subtree worker (decision 0680); older ones made every node on the loop.
    nodesMadeOnLoop: get('wharf_state_nodes_made_on_loop_total') || 0,
    leveldbOtherKeys:
      get('wharf_leveldb_read_keys_total{kind="storage"}') +
      get('wharf_leveldb_read_keys_total{kind="other"}'),
  };
}
