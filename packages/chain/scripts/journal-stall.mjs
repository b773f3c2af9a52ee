/**
 * The flashblock journal under a disk stall: does the event loop (the thread that reads requests)
 * keep turning while an append waits for the disk? Two writers, the same records:
 *   sync    the previous journal: writeSync on an O_DSYNC descriptor, on the event loop
 *   worker  the journal now (dist/builder/flashblockJournal.js): a writer thread, group commit
 * The stall is real: the journal lives on a small ext4 image mounted on a loop device, frozen
 * with `fsfreeze` for `--stall-ms` every `--every-ms` (needs root; run on a machine you own).
 * Measured: event-loop delay (a 10 ms timer's lateness: what a request waiting to be read sees),
 * append latency (flashblock every 200 ms, as the node's default), each p50/p99/max.
 *
 *   npm run build && sudo node packages/chain/scripts/journal-stall.mjs --seconds 20
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    'stall-ms': { type: 'string', default: '1000' },
    'every-ms': { type: 'string', default: '3000' },
    modes: { type: 'string', default: 'sync,worker' },
  },
});
const execFileAsync = promisify(execFile);
const seconds = Number(values.seconds);
const stallMs = Number(values['stall-ms']);
const everyMs = Number(values['every-ms']);
const here = path.dirname(fileURLToPath(import.meta.url));
const { FlashblockJournal } = await import(
  pathToFileURL(path.join(here, '../dist/builder/flashblockJournal.js')).href
);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-stall-'));
const image = path.join(work, 'disk.img');
const mnt = path.join(work, 'mnt');
fs.mkdirSync(mnt);
execFileSync('truncate', ['-s', '64M', image]);
execFileSync('mkfs.ext4', ['-q', image]);
execFileSync('mount', ['-o', 'loop', image, mnt]);
const sh = (cmd, args) => execFileSync(cmd, args, { stdio: 'ignore' });
let frozen = false;
const thaw = () => {
  if (frozen) sh('fsfreeze', ['-u', mnt]);
  frozen = false;
};
const cleanup = () => {
  thaw();
  try {
    sh('umount', [mnt]);
  } catch {}
  fs.rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : 0;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const txs = Array.from({ length: 200 }, (_, i) => Buffer.alloc(110, i)); // ~200 transfers a flashblock

/** The journal before decision 0210: one synchronous O_DSYNC write on this thread. */
function syncJournal(file) {
  const fd = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC,
  );
  return {
    openBlock: async () => {},
    append: async (index, list) => {
      const body = Buffer.from(JSON.stringify({ k: 'txs', index, txs: list.map((t) => t.toString('hex')) }));
      const rec = Buffer.concat([Buffer.alloc(4), body]);
      rec.writeUInt32BE(body.length, 0);
      fs.writeSync(fd, rec);
    },
    close: async () => fs.closeSync(fd),
  };
}

async function run(mode) {
  const file = path.join(mnt, `${mode}.journal`);
  const journal =
    mode === 'sync' ? syncJournal(file) : await FlashblockJournal.open(file, { waitMs: 60_000 });
  await journal.openBlock({ number: 1n, parentHash: new Uint8Array(32), timestamp: 1n });
  const loopLag = [];
  const appendMs = [];
  let stop = false;
  // The reader: a 10 ms timer, its lateness is how long a request would wait to be read.
  const reader = (async () => {
    while (!stop) {
      const t = performance.now();
      await sleep(10);
      loopLag.push(performance.now() - t - 10);
    }
  })();
  // The stall: the file system frozen for stallMs every everyMs (from a child process, so that
  // it starts and ends on time whatever this thread is doing).
  const staller = (async () => {
    await sleep(everyMs / 2);
    while (!stop) {
      frozen = true;
      await execFileAsync('sh', ['-c', `fsfreeze -f ${mnt}; sleep ${stallMs / 1000}; fsfreeze -u ${mnt}`]);
      frozen = false;
      await sleep(everyMs - stallMs);
    }
  })();
  const builder = (async () => {
    let index = 1;
    while (!stop) {
      const t = performance.now();
      await journal.append(index++, txs);
      appendMs.push(performance.now() - t);
      await sleep(Math.max(0, 200 - (performance.now() - t)));
    }
  })();
  await sleep(seconds * 1000);
  stop = true;
  await Promise.all([reader, builder, staller]);
  await journal.close();
  return { mode, appends: appendMs.length, loopLag, appendMs };
}

const rows = [];
for (const mode of values.modes.split(',')) rows.push(await run(mode));
const f = (x) => x.toFixed(1);
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${seconds} s per mode, stall ${stallMs} ms every ${everyMs} ms`,
);
console.log('| writer | appends | event-loop delay p50 / p99 / max (ms) | append p50 / p99 / max (ms) |');
console.log('|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.mode} | ${r.appends} | ${f(pct(r.loopLag, 50))} / ${f(pct(r.loopLag, 99))} / ${f(Math.max(...r.loopLag))} | ${f(pct(r.appendMs, 50))} / ${f(pct(r.appendMs, 99))} / ${f(Math.max(...r.appendMs))} |`,
  );
