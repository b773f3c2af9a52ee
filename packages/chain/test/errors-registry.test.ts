/**
 * The chain's error registry (src/primitives/errorCodes.ts) and docs/errors.md list the same
 * codes, and every pool refusal the registry of pool messages holds is in the pool's README.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/primitives/errorCodes.js';
import { TxPoolErrorMessage } from '../src/txpool/errors.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The codes in the first column of the markdown tables (`-38010` / `-38011` counts both). */
function documentedCodes(markdown: string): number[] {
  const codes: number[] = [];
  for (const line of markdown.split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!first || !/^\s*`?-?\d+`?(\s*\/\s*`?-?\d+`?)*\s*$/.test(first)) continue;
    for (const m of first.matchAll(/-?\d+/g)) codes.push(Number(m[0]));
  }
  return codes;
}

describe('the error registry', () => {
  it('and docs/errors.md list exactly the same codes', () => {
    const registry = new Set<number>(Object.values(ErrorCode));
    const docs = new Set(documentedCodes(read('../docs/errors.md')));
    const notDocumented = [...registry].filter((c) => !docs.has(c));
    const notRegistered = [...docs].filter((c) => !registry.has(c));
    expect(
      notDocumented,
      `in src/primitives/errorCodes.ts, missing from docs/errors.md: ${notDocumented}`,
    ).toEqual([]);
    expect(
      notRegistered,
      `in docs/errors.md, missing from src/primitives/errorCodes.ts: ${notRegistered}`,
    ).toEqual([]);
  });

  it('names each code once', () => {
    const values = Object.values(ErrorCode);
    const twice = values.filter((c, i) => values.indexOf(c) !== i);
    expect(twice, `codes registered under two names: ${twice}`).toEqual([]);
  });

  it("has every pool refusal's geth text in src/txpool/README.md", () => {
    const readme = read('../src/txpool/README.md');
    const missing = Object.entries(TxPoolErrorMessage)
      .filter(([, text]) => !readme.includes(text))
      .map(([kind, text]) => `${kind} (${text})`);
    expect(missing, `pool messages missing from src/txpool/README.md: ${missing.join(', ')}`).toEqual([]);
  });

  it('a parser that finds nothing would pass: the docs do have codes', () => {
    expect(documentedCodes(read('../docs/errors.md')).length).toBeGreaterThan(8);
    expect(documentedCodes('| `-38010` / `-38011` | a | b |\n| text 12 | x |')).toEqual([-38010, -38011]);
  });
});
