/**
 * Which proxies may name the client's address in `X-Forwarded-For` (the rate limits' key).
 * Never "every hop": the left-most entry is whatever the client wrote, so trusting it lets a
 * client pick a fresh IP per request and walk past its budget (issue 29, finding 5). Either a hop
 * count (`1` behind one reverse proxy: the entry that proxy appended), or the proxies' own
 * addresses and CIDRs (`10.0.0.0/8`), as fastify's `trustProxy` number and list.
 */
import { isIP } from 'node:net';

/** `false` (the socket's peer is the client), a hop count, or proxy addresses / CIDRs. */
export type TrustProxy = false | number | readonly string[];

/** proxy-addr's names for address ranges (fastify accepts them in the list). */
const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why `entry` is not an address, a CIDR or a named range; undefined when it is one. */
function badEntry(entry: string): string | undefined {
  if (namedRanges.has(entry)) return undefined;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address or CIDR`;
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return `"${entry}" has a bad prefix length (0-${max})`;
  return undefined;
}

/**
 * Checks a programmatic `trustProxy` option; throws an Error naming the rule. `true` is refused:
 * it is the setting that let clients choose their IP.
 */
export function checkTrustProxy(value: unknown): false | number | string[] {
  if (value === false || value === undefined) return false;
  if (value === true)
    throw new Error(
      'trustProxy: true would trust every X-Forwarded-For hop (a client could choose its own IP); give a hop count (1 behind one proxy) or the proxies’ addresses/CIDRs',
    );
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`trustProxy: a hop count must be a whole number, got ${value}`);
    return value === 0 ? false : value;
  }
  if (Array.isArray(value) && value.length > 0) {
    for (const entry of value) {
      const why = typeof entry === 'string' ? badEntry(entry.trim()) : 'entries must be strings';
      if (why) throw new Error(`trustProxy: ${why}`);
    }
    return value.map((e: string) => e.trim());
  }
  throw new Error('trustProxy: expected false, a hop count, or a list of proxy addresses/CIDRs');
}

/**
 * Parses the `--trust-proxy` flag: `1` (hops), or `10.0.0.0/8,127.0.0.1` (addresses/CIDRs).
 * Throws an Error saying what was expected.
 */
export function parseTrustProxy(text: string): false | number | string[] {
  const value = text.trim();
  if (/^\d+$/.test(value)) return checkTrustProxy(Number(value));
  if (value === '' || value === 'true')
    throw new Error(
      'expected a hop count (e.g. 1 behind one reverse proxy) or the proxies’ addresses/CIDRs (e.g. 10.0.0.0/8)',
    );
  return checkTrustProxy(value.split(',').filter((e) => e.trim() !== ''));
}

/**
 * The value fastify takes. A hop count becomes a function trusting the nearest `n` hops (the
 * socket's peer is hop 0): fastify 5.12 treats a bare number as "trust nothing". With a hop count
 * the server must be reachable only through the proxy (listen on 127.0.0.1 or firewall it), or a
 * direct client's own X-Forwarded-For would be believed; proxy addresses have no such condition.
 */
export function fastifyTrustProxy(
  value: unknown,
): false | string[] | ((address: string, hop: number) => boolean) {
  const checked = checkTrustProxy(value);
  if (typeof checked === 'number') return (_address, hop) => hop < checked;
  return checked;
}
