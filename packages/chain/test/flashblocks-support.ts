/**
 * What the flashblocks tests share: dev-key transfers signed with viem, a JSON-RPC batch that
 * pools transactions together, and a WebSocket that keeps every message with its arrival time.
 */
import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { DEV_KEYS } from './node-helpers.js';

export const ZERO_HASH = `0x${'0'.repeat(64)}`;
export const TO = '0x00000000000000000000000000000000000f1a54';
export const chain = {
  id: 31337,
  name: 'wharf',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
} as const;

export async function signTransfer(
  key: (typeof DEV_KEYS)[number],
  nonce: number,
  to: `0x${string}` = TO,
): Promise<`0x${string}`> {
  return privateKeyToAccount(key).signTransaction({
    to,
    value: parseEther('0.001'),
    nonce,
    gas: 21000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: chain.id,
    type: 'eip1559',
  });
}

/** Sends these transactions in one JSON-RPC batch (so they are pooled together); all are accepted. */
export async function sendAllAtOnce(url: string, raws: string[]): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      raws.map((r, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [r] })),
    ),
  });
  expect(((await res.json()) as any[]).every((r: any) => typeof r.result === 'string')).toBe(true);
}

/** A WebSocket and every message it got, each with when it arrived (from the first one on). */
export function openSocket(
  url: string,
): Promise<{ ws: WebSocket; messages: any[]; arrivedAt: (m: unknown) => number | undefined }> {
  const ws = new WebSocket(url);
  const messages: any[] = [];
  const arrivals: number[] = [];
  ws.on('message', (d) => {
    arrivals.push(Date.now());
    messages.push(JSON.parse(d.toString()));
  });
  const arrivedAt = (m: unknown) => arrivals[messages.indexOf(m)];
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, arrivedAt }));
    ws.once('error', reject);
  });
}
