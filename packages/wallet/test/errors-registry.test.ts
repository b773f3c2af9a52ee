/**
 * The wallet's error registry (src/errors.ts: `walletErrorCodes`, `defaultErrorMessages`) and
 * docs/errors.md list the same codes; 4100's message is EIP-1193's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWalletProvider, defaultErrorMessages, walletErrorCodes } from '../src/index.js';

/** The codes in the first column of the markdown tables. */
function documentedCodes(markdown: string): number[] {
  const codes: number[] = [];
  for (const line of markdown.split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!first || !/^\s*`?-?\d+`?(\s*\/\s*`?-?\d+`?)*\s*$/.test(first)) continue;
    for (const m of first.matchAll(/-?\d+/g)) codes.push(Number(m[0]));
  }
  return codes;
}

describe('the wallet error registry', () => {
  it('and docs/errors.md list exactly the same codes', () => {
    const registry = new Set<number>(Object.values(walletErrorCodes));
    const docs = new Set(
      documentedCodes(readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')),
    );
    expect(docs.size).toBeGreaterThan(5);
    const notDocumented = [...registry].filter((c) => !docs.has(c));
    const notRegistered = [...docs].filter((c) => !registry.has(c));
    expect(notDocumented, `in src/errors.ts, missing from docs/errors.md: ${notDocumented}`).toEqual([]);
    expect(notRegistered, `in docs/errors.md, missing from src/errors.ts: ${notRegistered}`).toEqual([]);
  });

  it('has a default message for every code, and no other', () => {
    const codes = Object.values(walletErrorCodes).map(String).sort();
    expect(Object.keys(defaultErrorMessages).sort()).toEqual(codes);
  });

  it("answers 4100 with EIP-1193's text", async () => {
    const provider = createWalletProvider({ privateKeys: [`0x${'11'.repeat(32)}`] });
    const error = await provider.request({ method: 'eth_sendTransaction', params: [{}] }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(error?.code).toBe(4100);
    expect(error?.message).toBe('The requested method and/or account has not been authorized by the user.');
  });
});
