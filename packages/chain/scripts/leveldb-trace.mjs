// Records every write and read the node hands LevelDB, in order, with its time, to
// $LEVELDB_TRACE.<pid> (put it on tmpfs: /dev/shm is not counted in the node's write_bytes), for
// leveldb-replay.mjs. A preload, not a script:
//   LEVELDB_TRACE=/dev/shm/trace NODE_OPTIONS="--import $PWD/packages/chain/scripts/leveldb-trace.mjs" \
//     node bench/preconf.mjs --seconds 300
// Record: 1 write (u8 kind, f64 ms, u8 sync, u32 database, u32 n, then n × [u8 0 put | 1 del,
// u32 key length, key, u32 value length, value]); 2 read (u8 kind, f64 ms, u32 database, u32 n,
// then n × [u32 key length, key]). Databases are numbered in the order they are first used
// (their folders in $LEVELDB_TRACE.<pid>.locs at exit).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const out = process.env.LEVELDB_TRACE;
if (out && isMainThread) {
  const require = createRequire(import.meta.url);
  const { ClassicLevel } = require('classic-level');
  const { ChainedBatch } = require('classic-level/chained-batch.js');
  const fd = fs.openSync(`${out}.${process.pid}`, 'w');
  const locs = new Map();
  const idOf = (db) => {
    if (!locs.has(db.location)) locs.set(db.location, locs.size);
    return locs.get(db.location);
  };
  const bytes = (x) => (typeof x === 'string' ? Buffer.from(x) : Uint8Array.from(x));
  const write = (db, sync, ops) => {
    let n = 18;
    for (const [, k, v] of ops) n += 9 + k.length + (v?.length ?? 0);
    const b = Buffer.allocUnsafe(n);
    b[0] = 1;
    b.writeDoubleLE(performance.timeOrigin + performance.now(), 1);
    b[9] = sync ? 1 : 0;
    b.writeUInt32LE(idOf(db), 10);
    b.writeUInt32LE(ops.length, 14);
    let o = 18;
    for (const [t, k, v] of ops) {
      b[o++] = t;
      o = b.writeUInt32LE(k.length, o);
      b.set(k, o);
      o += k.length;
      o = b.writeUInt32LE(v?.length ?? 0, o);
      if (v) b.set(v, o);
      o += v?.length ?? 0;
    }
    fs.writeSync(fd, b);
  };
  const read = (db, ks) => {
    let n = 17;
    for (const k of ks) n += 4 + k.length;
    const b = Buffer.allocUnsafe(n);
    b[0] = 2;
    b.writeDoubleLE(performance.timeOrigin + performance.now(), 1);
    b.writeUInt32LE(idOf(db), 9);
    b.writeUInt32LE(ks.length, 13);
    let o = 17;
    for (const k of ks) {
      o = b.writeUInt32LE(k.length, o);
      b.set(k, o);
      o += k.length;
    }
    fs.writeSync(fd, b);
  };
  const ops = Symbol('ops');
  const opsOf = (batch) => {
    if (!batch[ops]) batch[ops] = [];
    return batch[ops];
  };
  const B = ChainedBatch.prototype;
  const { _put, _del, _clear, _write } = B;
  B._put = function (k, v) {
    opsOf(this).push([0, bytes(k), bytes(v)]);
    return _put.call(this, k, v);
  };
  B._del = function (k) {
    opsOf(this).push([1, bytes(k)]);
    return _del.call(this, k);
  };
  B._clear = function () {
    this[ops] = [];
    return _clear.call(this);
  };
  B._write = function (o) {
    write(this.db, o?.sync, this[ops] ?? []);
    return _write.call(this, o);
  };
  const D = ClassicLevel.prototype;
  const db = { put: D._put, del: D._del, batch: D._batch, get: D._get, getMany: D._getMany };
  D._put = function (k, v, o) {
    write(this, o?.sync, [[0, bytes(k), bytes(v)]]);
    return db.put.call(this, k, v, o);
  };
  D._del = function (k, o) {
    write(this, o?.sync, [[1, bytes(k)]]);
    return db.del.call(this, k, o);
  };
  D._batch = function (list, o) {
    const l = list.map((x) => (x.type === 'put' ? [0, bytes(x.key), bytes(x.value)] : [1, bytes(x.key)]));
    write(this, o?.sync, l);
    return db.batch.call(this, list, o);
  };
  D._get = function (k, o) {
    read(this, [bytes(k)]);
    return db.get.call(this, k, o);
  };
  D._getMany = function (ks, o) {
    read(this, ks.map(bytes));
    return db.getMany.call(this, ks, o);
  };
  process.on('exit', () => fs.writeFileSync(`${out}.${process.pid}.locs`, JSON.stringify([...locs.keys()])));
}
