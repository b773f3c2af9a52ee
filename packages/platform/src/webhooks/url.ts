/**
 * Webhook URLs and where they may point. A local platform posts to the developer's own machine by
 * design (http://localhost:...), so by default any http(s) host is allowed. An exposed deployment
 * sets `webhookBlockPrivate` (`--webhook-block-private`): then a URL whose host is, or resolves to,
 * a loopback, private, link-local, CGNAT, multicast or reserved address is refused at delivery
 * (the check runs on the address actually connected to, so DNS rebinding does not get around it).
 */
import { BlockList, isIP } from 'node:net';
import { invalid } from '../errors.js';

export const maxWebhookUrlLength = 2000;

/** Checks and normalizes a webhook URL; a 400 naming `url` and the rule otherwise. */
export function parseWebhookUrl(input: unknown): string {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === ''))
    throw invalid('url', 'is required');
  if (typeof input !== 'string') throw invalid('url', 'must be a string');
  if (input.length > maxWebhookUrlLength)
    throw invalid('url', `must be at most ${maxWebhookUrlLength} characters`);
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw invalid('url', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalid('url', 'must be an absolute http(s) URL');
  if (url.username || url.password) throw invalid('url', 'must not carry credentials');
  if (url.hash) throw invalid('url', 'must not have a fragment');
  return url.toString();
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** Whether `address` (an IP literal) is loopback, private, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(bare, 'ipv6');
  }
  return false;
}
