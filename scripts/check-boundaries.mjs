#!/usr/bin/env node
// Checks the import boundaries of docs/design (Layout): imports flow one way,
//   cli -> {chain, notifications, app}, app -> {wallet, sdk}, sdk -> nothing of ours,
// and chain, notifications and wallet never import each other.
// Inside chain, folders are stacked and imports only point down.
// Exits 1 naming every offending file and import.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const allowed = {
  chain: [],
  notifications: [],
  wallet: [],
  sdk: [],
  app: ['wallet', 'sdk'],
  cli: ['chain', 'notifications', 'app'],
};
// Layers inside packages/chain/src, highest first: a folder may import only folders after it.
const chainLayers = ['rpc', 'builder', 'txpool', 'execution', 'reader', 'state', 'storage'];
// Folders that any chain layer may use (leaf helpers with no imports of the layers).
const chainShared = new Set(['primitives', 'trie', 'crypto', 'chainspec', 'errors', 'log']);

const importRe =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

const problems = [];
for (const [pkg, deps] of Object.entries(allowed)) {
  const pkgJson = JSON.parse(fs.readFileSync(path.join(root, 'packages', pkg, 'package.json'), 'utf8'));
  const declared = { ...pkgJson.dependencies, ...pkgJson.devDependencies, ...pkgJson.peerDependencies };
  for (const name of Object.keys(declared)) {
    const other = name === 'wharf' ? 'cli' : name.startsWith('@wharf/') ? name.slice(7) : null;
    if (other && other !== pkg && !deps.includes(other))
      problems.push(`packages/${pkg}/package.json depends on ${name}`);
  }
  for (const sub of ['src', 'test']) {
    for (const file of walk(path.join(root, 'packages', pkg, sub))) {
      const text = fs.readFileSync(file, 'utf8');
      const rel = path.relative(root, file);
      for (const m of text.matchAll(importRe)) {
        const spec = m[1] ?? m[2] ?? m[3];
        if (spec.startsWith('@wharf/') || spec === 'wharf' || spec.startsWith('wharf/')) {
          const other = spec === 'wharf' || spec.startsWith('wharf/') ? 'cli' : spec.slice(7).split('/')[0];
          if (other !== pkg && !deps.includes(other)) problems.push(`${rel} imports ${spec}`);
        } else if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          const targetPkg = path.relative(path.join(root, 'packages'), target).split(path.sep)[0];
          if (!target.startsWith(root) || targetPkg !== pkg)
            problems.push(`${rel} reaches outside its package: ${spec}`);
          else if (pkg === 'chain' && sub === 'src') checkChainLayer(file, target, rel, spec);
        }
      }
    }
  }
}

function layerOf(p) {
  const parts = path.relative(path.join(root, 'packages/chain/src'), p).split(path.sep);
  return parts.length > 1 ? parts[0] : null; // null: a file at src/ (node.ts, index.ts: the composition root)
}
function checkChainLayer(file, target, rel, spec) {
  const from = layerOf(file);
  const to = layerOf(target);
  if (from === null || to === null || from === to || chainShared.has(to)) return;
  if (to === 'rpc') return problems.push(`${rel} imports rpc/ (${spec}): nothing imports rpc/`);
  const fi = chainLayers.indexOf(from);
  const ti = chainLayers.indexOf(to);
  if (chainShared.has(from) && ti >= 0) return problems.push(`${rel} (shared ${from}/) imports layer ${to}/`);
  if (fi >= 0 && ti >= 0 && ti <= fi)
    problems.push(`${rel} (${from}/) imports ${to}/ above or beside it: ${spec}`);
}

if (problems.length) {
  console.error(`import boundaries: ${problems.length} violation(s)`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log('import boundaries: ok');
