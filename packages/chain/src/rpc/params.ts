/**
 * Strict parsing of positional parameters at the RPC edge (hex in, bigint and bytes out).
 * Every failure is -32602 with a message naming the argument, as geth words it:
 * "invalid argument 1 (block): hex string has leading zero digits".
 */
import type { BlockTag } from '../state/resolve.js';
import { ErrorCode, invalidParams, RpcError } from './errors.js';

const HEX_RE = /^[0-9a-fA-F]*$/;

export class Params {
  constructor(
    private readonly list: unknown[],
    private readonly names: string[],
  ) {}

  get length(): number {
    return this.list.length;
  }

  has(i: number): boolean {
    return this.list[i] !== undefined && this.list[i] !== null;
  }

  raw(i: number): unknown {
    return this.list[i];
  }

  fail(i: number, why: string): never {
    throw invalidParams(`invalid argument ${i} (${this.names[i] ?? 'param'}): ${why}`);
  }

  private need(i: number): unknown {
    const v = this.list[i];
    if (v === undefined || v === null)
      throw invalidParams(`missing value for required argument ${i} (${this.names[i]})`);
    return v;
  }

  quantity(i: number): bigint {
    return parseQuantity(this.need(i), (why) => this.fail(i, why));
  }

  optQuantity(i: number): bigint | undefined {
    return this.has(i) ? this.quantity(i) : undefined;
  }

  data(i: number, length?: number): Uint8Array {
    return parseData(this.need(i), (why) => this.fail(i, why), length);
  }

  address(i: number): Uint8Array {
    return this.data(i, 20);
  }

  hash(i: number): Uint8Array {
    return this.data(i, 32);
  }

  bool(i: number): boolean {
    const v = this.need(i);
    if (typeof v !== 'boolean') this.fail(i, 'expected a boolean');
    return v;
  }

  optBool(i: number, d: boolean): boolean {
    return this.has(i) ? this.bool(i) : d;
  }

  string(i: number): string {
    const v = this.need(i);
    if (typeof v !== 'string') this.fail(i, 'expected a string');
    return v;
  }

  object(i: number): Record<string, unknown> {
    const v = this.need(i);
    if (typeof v !== 'object' || Array.isArray(v)) this.fail(i, 'expected an object');
    return v as Record<string, unknown>;
  }

  /** A block number or tag (block methods). */
  blockNumber(i: number): BlockTag {
    const v = this.need(i);
    return parseBlockNumber(v, (why) => this.fail(i, why));
  }

  /** A block number, tag, hash, or EIP-1898 object (state methods); default latest. */
  blockOrHash(i: number): BlockTag {
    if (!this.has(i)) return { tag: 'latest' };
    const v = this.list[i];
    const fail = (why: string) => this.fail(i, why);
    if (typeof v === 'string' && v.length === 66 && v.startsWith('0x'))
      return { hash: parseData(v, fail, 32) };
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (o.blockHash !== undefined && o.blockNumber !== undefined)
        fail('cannot specify both blockHash and blockNumber, choose one or the other');
      if (o.blockHash !== undefined)
        return { hash: parseData(o.blockHash, fail, 32), requireCanonical: o.requireCanonical === true };
      if (o.blockNumber !== undefined) return parseBlockNumber(o.blockNumber, fail);
      fail('expected blockHash or blockNumber');
    }
    return parseBlockNumber(v, fail);
  }
}

export function parseQuantity(v: unknown, fail: (why: string) => never): bigint {
  if (typeof v !== 'string') fail('expected a hex-encoded quantity string');
  if (!v.startsWith('0x') && !v.startsWith('0X')) fail('hex string without 0x prefix');
  const s = v.slice(2);
  if (s.length === 0) fail('hex string "0x"');
  if (!HEX_RE.test(s)) fail('invalid hex string');
  if (s.length > 1 && s[0] === '0') fail('hex number with leading zero digits');
  if (s.length > 64) fail('hex number > 256 bits');
  return BigInt(v);
}

export function parseData(v: unknown, fail: (why: string) => never, length?: number): Uint8Array {
  if (typeof v !== 'string') fail('expected a hex-encoded data string');
  if (!v.startsWith('0x') && !v.startsWith('0X')) fail('hex string without 0x prefix');
  const s = v.slice(2);
  if (s.length % 2) fail('hex string has odd length');
  if (!HEX_RE.test(s)) fail('invalid hex string');
  if (length !== undefined && s.length !== length * 2)
    fail(`hex string has length ${s.length}, want ${length * 2} for ${length} bytes`);
  return Uint8Array.from(Buffer.from(s, 'hex'));
}

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);

export function parseBlockNumber(v: unknown, fail: (why: string) => never): BlockTag {
  if (typeof v === 'string' && TAGS.has(v)) return { tag: v as 'latest' };
  if (typeof v !== 'string') fail('expected a block number or tag');
  if (!v.startsWith('0x')) fail(`unknown block tag "${v.slice(0, 32)}"`);
  const n = parseQuantity(v, fail);
  if (n > 0x7fffffffffffffffn) fail('block number larger than int64');
  return { number: n };
}

/** The argument count check every method makes before parsing. */
export function checkArity(params: unknown[], min: number, max: number): void {
  if (params.length > max)
    throw new RpcError(ErrorCode.InvalidParams, `too many arguments, want at most ${max}`);
  if (params.length < min)
    throw new RpcError(ErrorCode.InvalidParams, `missing value for required argument ${params.length}`);
}
