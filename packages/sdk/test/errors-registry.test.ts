/**
 * The SDK's error registry and docs/errors.md list the same codes; the platform codes it knows
 * are the ones the platform documents (packages/platform/docs/errors.md, read as text: the SDK
 * imports nothing of ours), each with the same status and `error`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { apiErrorCodes, webhookVerificationReasons } from '../src/index.js';

const here = import.meta.dirname;
const sdkDoc = fs.readFileSync(path.join(here, '../docs/errors.md'), 'utf8');
const platformDoc = fs.readFileSync(path.join(here, '../../platform/docs/errors.md'), 'utf8');

/** Rows of the markdown tables after `heading`: the first cell (a code in backticks) and the rest. */
function rows(doc: string, heading: string): string[][] {
  const section = doc.slice(doc.indexOf(heading));
  const next = section.indexOf('\n## ', 1);
  return (next < 0 ? section : section.slice(0, next))
    .split('\n')
    .filter((line) => /^\| `[^`]+` \|/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
}

it('docs/errors.md lists exactly the codes of apiErrorCodes, with their status and error', () => {
  const documented = rows(sdkDoc, '## `WharfApiError`').filter(([, status]) => /^\d{3}$/.test(status!));
  expect(documented.map(([code]) => code).sort()).toEqual(Object.keys(apiErrorCodes).sort());
  for (const [code, status, error] of documented) {
    expect(apiErrorCodes[code as keyof typeof apiErrorCodes], code).toEqual({
      status: Number(status),
      error,
    });
  }
});

it('docs/errors.md lists exactly the reasons of WebhookVerificationError', () => {
  const documented = rows(sdkDoc, '## `WebhookVerificationError`').map(([reason]) => reason);
  expect(documented.sort()).toEqual(Object.keys(webhookVerificationReasons).sort());
});

it('apiErrorCodes are the platform’s documented codes, with the same status and error', () => {
  const platform = rows(platformDoc, '| Code |');
  expect(platform.map(([code]) => code).sort()).toEqual(Object.keys(apiErrorCodes).sort());
  for (const [code, status, error] of platform) {
    expect(apiErrorCodes[code as keyof typeof apiErrorCodes], code).toEqual({
      status: Number(status),
      error,
    });
  }
});
