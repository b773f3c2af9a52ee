/**
 * Vitest's global setup: every test run gets a temporary directory of its own, named in TMPDIR
 * before the test workers start, and removed when the run ends. Tests make data directories,
 * sockets and browser profiles with os.tmpdir() (and the nodes and CLIs they spawn inherit
 * TMPDIR); a test that fails before its own clean-up, or a store that writes siblings beside the
 * path it was given (`<dir>-trie`, `<dir>-bodies`), no longer leaves them on the machine: a
 * developer's /tmp gained ~40 directories a run before this.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-tests-'));
  // Others may pass through (not list): a test run as root starts PostgreSQL as `postgres` in a
  // directory of its own under here (throwawayServices.ts). What is inside stays 0700.
  fs.chmodSync(root, 0o711);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(root, { recursive: true, force: true });
  };
}
