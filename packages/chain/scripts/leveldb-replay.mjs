#!/usr/bin/env node
// Replays a trace of leveldb-trace.mjs into fresh LevelDB databases with other options or another
// split of the keys, and prints what LevelDB wrote: this process's write_bytes (its logs, tables
// and compactions), the level-0 tables and compaction output of each database's LOG, and RSS.
// Bytes, not timing: several variants of one trace compare on a shared machine.
//   node packages/chain/scripts/leveldb-replay.mjs TRACE DIR [OPTIONS] [GROUPS] [SPEED]
//   OPTIONS  classic-level options as JSON, for all databases or per one ({"db1": {...}}); the
//            node's own (74 open files, 1 MiB tables) apply unless given
//   GROUPS   key kinds (first bytes), comma-separated, each group in a database of its own after
//            db0, which takes the rest: "ASL" (decision 0540), "-" for one database (before it)
//   SPEED    this many times faster than recorded (default 5; 0: as fast as it goes)
// SETTLE=ms (default 10,000): the wait after the last record for compactions in flight.
import fs from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';

const [trace, dir, optionsJson = '{}', groupsArg = 'ASL', speedArg = '5'] = process.argv.slice(2);
if (!trace || !dir) throw new Error('usage: leveldb-replay.mjs TRACE DIR [OPTIONS] [GROUPS] [SPEED]');
const options = JSON.parse(optionsJson);
const groups = groupsArg === '-' ? [] : groupsArg.split(',');
const speed = Number(speedArg);
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const shared = Object.fromEntries(Object.entries(options).filter(([k]) => !/^db\d+$/.test(k)));
const dbs = [];
for (let i = 0; i <= groups.length; i++) {
  const db = new ClassicLevel(path.join(dir, `db${i}`), {
    keyEncoding: 'view',
    valueEncoding: 'view',
    maxOpenFiles: 74,
    maxFileSize: 1 << 20,
    ...shared,
    ...(options[`db${i}`] ?? {}),
  });
  await db.open();
  dbs.push(db);
}
const route = new Uint8Array(256);
groups.forEach((g, i) => {
  for (const c of g) route[c.charCodeAt(0)] = i + 1;
});
const io = () =>
  Object.fromEntries(
    fs
      .readFileSync('/proc/self/io', 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(': '))
      .map(([k, v]) => [k, Number(v)]),
  );
const rss = () => {
  const s = fs.readFileSync('/proc/self/status', 'utf8');
  return ['VmRSS', 'RssAnon', 'RssFile'].map(
    (n) => Number(s.match(new RegExp(`${n}:\\s+(\\d+) kB`))?.[1]) / 1024,
  );
};
const buf = fs.readFileSync(trace);
const before = io();
const samples = [];
const timer = setInterval(() => samples.push(rss()), 1000);
const handed = dbs.map(() => 0);
const started = performance.now();
let first;
let reads = 0;
for (let o = 0; o < buf.length; ) {
  const kind = buf[o];
  const t = buf.readDoubleLE(o + 1);
  if (kind === 2) {
    const n = buf.readUInt32LE(o + 13);
    o += 17;
    const asked = dbs.map(() => []);
    for (let i = 0; i < n; i++) {
      const kl = buf.readUInt32LE(o);
      const k = buf.subarray(o + 4, o + 4 + kl);
      o += 4 + kl;
      asked[route[k[0]]].push(k);
    }
    for (const [d, ks] of asked.entries())
      if (ks.length) {
        reads += ks.length;
        await dbs[d].getMany(ks);
      }
    continue;
  }
  const sync = buf[o + 9] === 1;
  const n = buf.readUInt32LE(o + 14);
  o += 18;
  const parts = dbs.map(() => []);
  for (let i = 0; i < n; i++) {
    const type = buf[o];
    const kl = buf.readUInt32LE(o + 1);
    const k = buf.subarray(o + 5, o + 5 + kl);
    o += 5 + kl;
    const vl = buf.readUInt32LE(o);
    const v = buf.subarray(o + 4, o + 4 + vl);
    o += 4 + vl;
    const d = route[k[0]];
    parts[d].push(type === 0 ? { type: 'put', key: k, value: v } : { type: 'del', key: k });
    handed[d] += kl + vl;
  }
  first ??= t;
  if (speed > 0) {
    const wait = started + (t - first) / speed - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  }
  for (const [d, ops] of parts.entries()) if (ops.length) await dbs[d].batch(ops, { sync });
}
const seconds = (performance.now() - started) / 1000;
await new Promise((r) => setTimeout(r, Number(process.env.SETTLE ?? 10_000)));
clearInterval(timer);
const after = io();
const logs = dbs.map((_, i) => fs.readFileSync(path.join(dir, `db${i}`, 'LOG'), 'utf8'));
for (const db of dbs) await db.close();
const MB = (x) => Number((x / 2 ** 20).toFixed(1));
const level0 = (log) =>
  [...log.matchAll(/Level-0 table #\d+: (\d+) bytes/g)].reduce((a, m) => a + Number(m[1]), 0);
const compacted = (log) => {
  const out = { all: 0 };
  for (const m of log.matchAll(/Compacted \d+@(\d+) \+ \d+@\d+ files => (\d+) bytes/g)) {
    out[`from${m[1]}`] = (out[`from${m[1]}`] ?? 0) + Number(m[2]);
    out.all += Number(m[2]);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, MB(v)]));
};
const size = (d) => fs.readdirSync(d).reduce((a, f) => a + fs.statSync(path.join(d, f)).size, 0);
console.log(
  JSON.stringify({
    options: optionsJson,
    groups: groupsArg,
    speed,
    reads,
    seconds: Number(seconds.toFixed(1)),
    handedMB: handed.map(MB),
    writtenMB: MB(after.write_bytes - before.write_bytes),
    level0MB: logs.map((l) => MB(level0(l))),
    compactedMB: logs.map(compacted),
    sizeMB: dbs.map((_, i) => MB(size(path.join(dir, `db${i}`)))),
    rssMaxMB: Math.round(Math.max(...samples.map((s) => s[0]))),
    rssEndMB: samples.at(-1)?.map(Math.round),
  }),
);
