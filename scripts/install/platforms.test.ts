/**
 * `npm ci` must succeed on the laptops developers have (macOS arm64 and x64, Linux arm64 and x64),
 * not only on this Linux x64 machine. npm's `--os`/`--cpu` flags only steer optional
 * dependencies: a required package built for another platform is checked against the machine
 * npm runs on, so the dry runs below are paired with a check of the lockfile itself.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const targets = [
  { os: 'darwin', cpu: 'arm64' },
  { os: 'darwin', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
] as const;

interface LockEntry {
  os?: string[];
  cpu?: string[];
  optional?: boolean;
}

/** npm's rule for `os`/`cpu` lists: names, or `!name` to exclude one. */
function allows(list: string[] | undefined, value: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const positive = list.filter((v) => !v.startsWith('!'));
  return positive.length === 0 || positive.includes(value);
}

describe('npm ci on other platforms', () => {
  it.each(targets)('npm ci --dry-run --os=$os --cpu=$cpu succeeds and swaps the native binaries', (t) => {
    const r = spawnSync(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', `--os=${t.os}`, `--cpu=${t.cpu}`],
      { cwd: root, encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    // Biome's binary for that platform comes in, this machine's goes, and so does Anvil's Linux x64 binary.
    const arch = t.cpu === 'x64' ? 'x64' : 'arm64';
    expect(r.stdout).toContain(`add @biomejs/cli-${t.os}-${arch} `);
    expect(r.stdout).toContain('remove @biomejs/cli-linux-x64 ');
    expect(r.stdout).toContain('remove @foundry-rs/anvil-linux-amd64 ');
  });

  it('every platform-bound package in the lockfile is optional or allows every target', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const required = Object.entries(lock.packages).filter(([, p]) => (p.os || p.cpu) && !p.optional);
    const refused = required.flatMap(([name, p]) =>
      [...targets, { os: 'linux', cpu: 'x64' }]
        .filter((t) => !allows(p.os, t.os) || !allows(p.cpu, t.cpu))
        .map((t) => `${name} (required) cannot install on ${t.os}/${t.cpu}`),
    );
    expect(refused).toEqual([]);
    // The check above has something to look at: the platform binaries are in the lockfile.
    expect(Object.values(lock.packages).filter((p) => p.os || p.cpu).length).toBeGreaterThan(3);
  });

  it('the CLI package and the workspace root have different names', () => {
    const rootPkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const cliPkg = JSON.parse(fs.readFileSync(path.join(root, 'packages/cli/package.json'), 'utf8'));
    expect(cliPkg.name).toBe('wharf');
    expect(rootPkg.name).not.toBe(cliPkg.name);
    // npm links a bin at install time, before `prepare` builds dist/: the bin must be committed.
    const bin = path.join(root, 'packages/cli', cliPkg.bin.wharf);
    expect(fs.existsSync(bin)).toBe(true);
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
  });
});
