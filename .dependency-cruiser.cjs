/**
 * Import rules, checked by `npm run check:boundaries` (dependency-cruiser) in `npm test`.
 * The shape is design.md's "Layout": imports flow one way between packages, and inside the
 * chain package its folders are stacked so that imports only point down. No import cycles
 * anywhere. A violation names the rule, the file and the import.
 */

/** Which workspace packages each package may import (besides itself). */
const packageDeps = {
  chain: [],
  platform: [],
  wallet: [],
  sdk: [],
  app: ['wallet', 'sdk'],
  cli: ['chain', 'platform', 'app'],
};
/** A path inside packages/<name>, or the package by name (@wharf/<name>; the cli is `wharf`). */
const pkg = (name) =>
  name === 'cli' ? '^(packages/cli/|wharf$|wharf/)' : `^(packages/${name}/|@wharf/${name}($|/))`;

const packageRules = Object.entries(packageDeps).map(([name, deps]) => ({
  name: `package-${name}`,
  comment: `packages/${name} may import ${deps.length ? deps.join(', ') : 'no other package of ours'}`,
  severity: 'error',
  from: { path: `^packages/${name}/` },
  to: {
    path: Object.keys(packageDeps)
      .filter((other) => other !== name && !deps.includes(other))
      .map(pkg),
  },
}));

/**
 * Layers inside packages/chain/src, highest first: a folder imports only folders after it.
 * node.ts, index.ts and the other files at src/ are the composition root (they import anything).
 * follower/ (a node that imports its sequencer's blocks) sits on top: it serves RPC methods of
 * its own and drives the builder; nothing but node.ts imports it.
 */
const chainLayers = ['follower', 'rpc', 'builder', 'txpool', 'execution', 'reader', 'state', 'storage'];
/** Leaf helpers any chain layer may use; they import none of the layers. */
const chainShared = ['primitives', 'trie', 'crypto', 'chainspec'];
const chainDir = (folders) => `^packages/chain/src/(${folders.join('|')})/`;

const chainRules = [
  ...chainLayers.map((layer, i) => ({
    name: `chain-layer-${layer}`,
    comment: `chain/src/${layer}/ imports only the layers below it (${chainLayers.slice(i + 1).join(', ') || 'none'}) and the shared helpers`,
    severity: 'error',
    from: { path: chainDir([layer]) },
    to: { path: chainDir(chainLayers.slice(0, i)) },
  })),
  {
    name: 'chain-shared-is-a-leaf',
    comment: `chain/src/{${chainShared.join(',')}}/ import none of the layers`,
    severity: 'error',
    from: { path: chainDir(chainShared) },
    to: { path: chainDir(chainLayers) },
  },
].filter((r) => r.to.path !== chainDir([]));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle in any package (type-only imports included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every relative import resolves to a file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
    ...packageRules,
    ...chainRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Type-only imports count: a cycle of types is still a cycle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    enhancedResolveOptions: {
      // Workspace packages by their source (the "source" export condition, as vitest does).
      conditionNames: ['source', 'import', 'types', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
    },
  },
};
