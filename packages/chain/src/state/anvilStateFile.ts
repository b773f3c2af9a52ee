/**
 * Anvil's state file (`anvil --dump-state` / `--load-state`, `anvil_dumpState` /
 * `anvil_loadState`): JSON with every account of the world state.
 *
 *   { "block": { "number", "timestamp", "gas_limit", "basefee", "beneficiary", ... },
 *     "accounts": { "0x<address>": { "nonce": 1, "balance": "0x..", "code": "0x..",
 *                                    "storage": { "0x<slot>": "0x<value>" } } },
 *     "best_block_number": 12, "blocks": [], "transactions": [] }
 *
 * Anvil writes `nonce` as a JSON number and the U256 fields as hex; older files and Hardhat's
 * EDR write either, so both are read. wharf writes no `blocks` or `transactions` (a loaded state
 * is a world, not a history: docs/decisions/0142-state-files.md) and ignores them on load.
 */
import { bytesToHex, quantity } from '../primitives/hex.js';

export interface AnvilAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** slot (32 bytes, 0x-hex) -> value (bigint) */
  storage: Map<string, bigint>;
}

export interface AnvilBlockEnv {
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  coinbase: Uint8Array;
}

export interface AnvilState {
  block?: AnvilBlockEnv;
  /** 0x-lowercase address -> account */
  accounts: Map<string, AnvilAccount>;
  bestBlockNumber?: bigint;
}

export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

const HEX = /^0x[0-9a-fA-F]*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function num(v: unknown, where: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && HEX.test(v) && v.length > 2 && v.length <= 66) return BigInt(v);
  if (typeof v === 'string' && /^[0-9]+$/.test(v) && v.length <= 78) return BigInt(v);
  throw new StateFileError(
    `${where}: expected a number (JSON integer or 0x-hex), got ${JSON.stringify(v)?.slice(0, 40)}`,
  );
}

function bytes(v: unknown, where: string): Uint8Array {
  if (v === undefined || v === null) return new Uint8Array(0);
  if (typeof v !== 'string' || !HEX.test(v) || v.length % 2)
    throw new StateFileError(`${where}: expected 0x-hex bytes`);
  return Uint8Array.from(Buffer.from(v.slice(2), 'hex'));
}

/** A slot key as 32-byte 0x-hex (files write `0x0` as often as the full word). */
export function slotKey(v: bigint): string {
  return `0x${v.toString(16).padStart(64, '0')}`;
}

/** Reads a parsed state file; throws StateFileError naming the first bad field. */
export function parseAnvilState(json: unknown): AnvilState {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new StateFileError('a state file is a JSON object with "accounts"');
  const o = json as Record<string, unknown>;
  const accountsIn = o.accounts;
  if (typeof accountsIn !== 'object' || accountsIn === null || Array.isArray(accountsIn))
    throw new StateFileError('"accounts": expected an object of address -> account');
  const accounts = new Map<string, AnvilAccount>();
  for (const [address, a] of Object.entries(accountsIn as Record<string, unknown>)) {
    if (!ADDRESS.test(address))
      throw new StateFileError(`accounts: "${address.slice(0, 50)}" is not an address`);
    if (typeof a !== 'object' || a === null)
      throw new StateFileError(`accounts.${address}: expected an object`);
    const r = a as Record<string, unknown>;
    const storage = new Map<string, bigint>();
    if (r.storage !== undefined && r.storage !== null) {
      if (typeof r.storage !== 'object')
        throw new StateFileError(`accounts.${address}.storage: expected an object`);
      for (const [k, v] of Object.entries(r.storage as Record<string, unknown>))
        storage.set(
          slotKey(num(k, `accounts.${address}.storage key`)),
          num(v, `accounts.${address}.storage[${k}]`),
        );
    }
    accounts.set(address.toLowerCase(), {
      nonce: r.nonce === undefined ? 0n : num(r.nonce, `accounts.${address}.nonce`),
      balance: r.balance === undefined ? 0n : num(r.balance, `accounts.${address}.balance`),
      code: bytes(r.code, `accounts.${address}.code`),
      storage,
    });
  }
  let block: AnvilBlockEnv | undefined;
  if (typeof o.block === 'object' && o.block !== null) {
    const b = o.block as Record<string, unknown>;
    const opt = (k: string) => (b[k] === undefined || b[k] === null ? 0n : num(b[k], `block.${k}`));
    block = {
      number: opt('number'),
      timestamp: opt('timestamp'),
      gasLimit: opt('gas_limit'),
      baseFee: opt('basefee'),
      coinbase: bytes(b.beneficiary ?? b.coinbase, 'block.beneficiary'),
    };
  }
  const best = o.best_block_number;
  return {
    block,
    accounts,
    bestBlockNumber: best === undefined || best === null ? undefined : num(best, 'best_block_number'),
  };
}

/** The state as Anvil writes it (plain JSON object; callers stringify, and gzip for the RPC). */
export function formatAnvilState(s: AnvilState): Record<string, unknown> {
  const accounts: Record<string, unknown> = {};
  for (const [address, a] of s.accounts) {
    const storage: Record<string, string> = {};
    for (const [k, v] of a.storage) storage[k] = quantity(v);
    accounts[address] = {
      nonce: Number(a.nonce),
      balance: quantity(a.balance),
      code: bytesToHex(a.code),
      storage,
    };
  }
  return {
    block: s.block
      ? {
          number: quantity(s.block.number),
          beneficiary: bytesToHex(s.block.coinbase),
          timestamp: quantity(s.block.timestamp),
          gas_limit: quantity(s.block.gasLimit),
          basefee: quantity(s.block.baseFee),
          difficulty: '0x0',
        }
      : undefined,
    accounts,
    best_block_number: s.bestBlockNumber === undefined ? undefined : Number(s.bestBlockNumber),
    blocks: [],
    transactions: [],
  };
}
