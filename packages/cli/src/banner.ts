import path from 'node:path';
import type { ChainNode } from '@wharf/chain';
import { toChecksumAddress } from './checksum.js';
import { version } from './version.js';

/** The first line `wharf up` prints, before one log line per start-up step. */
export function startTitle(dataDir: string): string {
  return `wharf ${version}: starting the chain node and the platform (data in ${path.resolve(dataDir)})\n`;
}

/**
 * What `wharf up` prints once serving, as Anvil does: the dev accounts with their keys, then what
 * a person opens next (URLs, admin token) last, where the eye lands.
 */
export function upBanner(input: {
  startedMs: number;
  platformUrl: string;
  chain?: ChainNode;
  chainError?: string;
  dataDir: string;
  adminToken: string;
  balanceWei: bigint;
  mnemonic: string;
}): string {
  const lines: string[] = [''];
  if (input.chain && input.chain.accounts.length > 0) {
    const eth = formatEther(input.balanceWei);
    lines.push(`Available accounts (${eth} ETH each)`, '==================');
    for (const [i, a] of input.chain.accounts.entries()) lines.push(`(${i}) ${toChecksumAddress(a.address)}`);
    lines.push('', 'Private keys', '==================');
    for (const [i, a] of input.chain.accounts.entries()) lines.push(`(${i}) ${a.privateKey}`);
    lines.push('', 'Mnemonic', '==================', input.mnemonic, '');
  }
  lines.push(`wharf ${version} ready in ${input.startedMs} ms`, '');
  lines.push(`  Platform    ${input.platformUrl}`);
  lines.push(`  Dashboard   ${input.platformUrl}/dashboard`);
  lines.push(`  API docs    ${input.platformUrl}/api/docs`);
  if (input.chain) {
    lines.push(`  Chain RPC   ${input.chain.url}   ${input.chain.wsUrl}   chain id ${input.chain.chainId}`);
  } else {
    lines.push(`  Chain RPC   not running: ${input.chainError ?? 'unknown error'}`);
  }
  lines.push(`  Data        ${path.resolve(input.dataDir)}`, '');
  lines.push(`Admin token: ${input.adminToken}`, '', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

export function formatEther(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}
