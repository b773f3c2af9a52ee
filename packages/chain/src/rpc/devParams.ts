/**
 * Parameter shapes of the test methods that the strict Params readers do not cover: Anvil takes
 * U256 where geth takes a minimal quantity (a storage slot may come as a 32-byte word or as
 * `0x0`), evm_mine's `{ blocks, timestamp }` object, and plain JSON numbers where Hardhat users
 * pass them.
 */
import { gunzipSync } from 'node:zlib';
import type { MineOptions } from '../builder/devApi.js';
import type { DevApi } from '../builder/devApi.js';
import { type AnvilState, parseAnvilState } from '../state/anvilStateFile.js';
import { bigintToBytes, pad32 } from '../primitives/hex.js';
import type { RpcContext } from './context.js';
import { ErrorCode, RpcError } from './errors.js';
import type { Params } from './params.js';

const HEX = /^0x[0-9a-fA-F]*$/;

/** The test methods need the node's dev controls (absent on imported chains and read replicas). */
export function dev(c: RpcContext): DevApi {
  if (!c.dev) throw new RpcError(ErrorCode.MethodNotFound, 'test methods are not available on this node');
  return c.dev;
}

/** A U256: a hex string (any length up to 32 bytes, leading zeros allowed) or a safe JSON integer. */
export function u256(p: Params, i: number): bigint {
  const v = p.raw(i);
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) p.fail(i, 'expected a non-negative integer');
    return BigInt(v);
  }
  if (typeof v !== 'string' || !HEX.test(v) || v.length === 2) p.fail(i, 'expected a hex-encoded number');
  if (v.length > 66) p.fail(i, 'hex number > 256 bits');
  return BigInt(v);
}

/** A 32-byte word from a U256 (storage slots and values). */
export function word(p: Params, i: number): Uint8Array {
  return pad32(bigintToBytes(u256(p, i)));
}

/** evm_mine's optional parameter: a timestamp, or `{ blocks, timestamp }`. */
export function mineParam(p: Params, i: number): MineOptions {
  if (!p.has(i)) return {};
  const v = p.raw(i);
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const field = (k: string): bigint | undefined => {
      const x = o[k];
      if (x === undefined || x === null) return undefined;
      if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) return BigInt(x);
      if (typeof x === 'string' && HEX.test(x) && x.length > 2) return BigInt(x);
      return p.fail(i, `${k}: expected a number`);
    };
    return { blocks: field('blocks'), timestamp: field('timestamp') };
  }
  return { timestamp: u256(p, i) };
}

/** A boolean that Hardhat users sometimes pass as a number (`evm_setAutomine(1)`). */
export function flag(p: Params, i: number): boolean {
  const v = p.raw(i);
  if (typeof v === 'boolean') return v;
  return p.fail(i, 'expected a boolean');
}

/**
 * anvil_loadState's parameter: the hex of gzipped JSON that anvil_dumpState returns, hex of plain
 * JSON, or the JSON object itself (Hardhat's EDR and state files).
 */
export function stateParam(p: Params, i: number): AnvilState {
  const v = p.raw(i);
  let json: unknown = v;
  if (typeof v === 'string') {
    if (!HEX.test(v) || v.length % 2) p.fail(i, 'expected the hex string anvil_dumpState returns');
    let bytes = Buffer.from(v.slice(2), 'hex');
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        bytes = gunzipSync(bytes);
      } catch (e) {
        p.fail(i, `not valid gzip: ${(e as Error).message}`);
      }
    }
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      p.fail(i, 'not a state: the data is neither gzipped nor plain JSON');
    }
  }
  try {
    return parseAnvilState(json);
  } catch (e) {
    return p.fail(i, (e as Error).message);
  }
}
