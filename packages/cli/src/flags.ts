/**
 * Flag parsers shared by the commands. Each throws InvalidArgumentError with a message that
 * commander prefixes with the flag's name, so a bad value exits non-zero naming the flag.
 */
import { InvalidArgumentError } from 'commander';

export function parsePort(value: string): number {
  const n = parseInteger(value);
  if (n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port 0-65535, got "${value}"`);
  return n;
}

export function parseInteger(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`number too large: "${value}"`);
  return n;
}

export function parsePositiveInteger(value: string): number {
  const n = parseInteger(value);
  if (n < 1) throw new InvalidArgumentError(`expected a number of at least 1, got "${value}"`);
  return n;
}

export function parseBigInt(value: string): bigint {
  const v = value.trim();
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(v))
    throw new InvalidArgumentError(`expected a whole number (decimal or 0x-hex), got "${value}"`);
  return BigInt(v);
}

/** Seconds, possibly fractional (e.g. 0.5); 0 allowed. */
export function parseSeconds(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value.trim()))
    throw new InvalidArgumentError(`expected seconds (e.g. 2 or 0.5), got "${value}"`);
  return Number(value);
}

/** Seconds, possibly fractional, more than 0 (a wait that 0 would make fail at once). */
export function parsePositiveSeconds(value: string): number {
  const s = parseSeconds(value);
  if (s <= 0) throw new InvalidArgumentError(`expected more than 0 seconds (e.g. 6 or 0.5), got "${value}"`);
  return s;
}

/** A duration such as "200ms", "1s", "2m", "4h" (a bare number is milliseconds), in milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`expected a duration such as 500ms, 1s, 2m or 4h, got "${value}"`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  const ms = Math.round(Number(m[1]) * unit);
  if (ms < 1) throw new InvalidArgumentError(`expected a duration of at least 1 ms, got "${value}"`);
  return ms;
}

/** A comma-separated list of durations ("1s,5s,30s"), in milliseconds. */
export function parseDurationList(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === ''))
    throw new InvalidArgumentError(`expected durations separated by commas (e.g. 1s,5s,30s), got "${value}"`);
  return parts.map(parseDuration);
}

/** An ether amount such as "10000" or "0.5", returned in wei. */
export function parseEther(value: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`expected an amount of ether (e.g. 10000 or 0.5), got "${value}"`);
  return BigInt(m[1]) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0') || '0');
}

export function parseUrl(protocols: string[]) {
  return (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new InvalidArgumentError(`not a URL: "${redactUrl(value)}"`);
    }
    if (!protocols.includes(url.protocol))
      throw new InvalidArgumentError(`expected a ${protocols.join(' or ')} URL, got "${redactUrl(value)}"`);
    return value;
  };
}

export function parseMnemonic(value: string): string {
  const words = value.trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length))
    throw new InvalidArgumentError(`expected 12 to 24 words, got ${words.length}`);
  return words.join(' ');
}

/** A URL with its password hidden, for messages and logs. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}

/** Wraps a parser that throws Error into one that throws commander's InvalidArgumentError. */
export function asFlagParser<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

/** Seconds (possibly fractional, more than 0), returned in milliseconds. */
export function parsePositiveSecondsAsMs(value: string): number {
  const seconds = parseSeconds(value);
  if (seconds <= 0) throw new InvalidArgumentError(`expected more than 0 seconds, got "${value}"`);
  return Math.round(seconds * 1000);
}
