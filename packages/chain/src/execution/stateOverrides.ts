/**
 * State overrides, as geth takes them in eth_simulateV1, eth_call and eth_estimateGas: per
 * account a balance, nonce, code, all storage (`state`) or some slots (`stateDiff`), and
 * `movePrecompileToAddress`. They are written into a JournaledState over the real state, so
 * nothing reaches storage; precompile moves are applied to the VM that runs the call.
 */
import { Account, Address } from '@ethereumjs/util';
import { bytesToHex, pad32 } from '../primitives/hex.js';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { isPrecompile } from './precompiles.js';
import { ErrorCode } from '../primitives/errorCodes.js';
import { SimulateError } from './simulateError.js';

export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces all storage. */
  state?: [Uint8Array, Uint8Array][];
  /** Patches storage. */
  stateDiff?: [Uint8Array, Uint8Array][];
  movePrecompileToAddress?: Uint8Array;
}

export async function applyStateOverrides(
  state: JournaledState,
  overrides: Map<string, AccountOverride> | undefined,
  moved: Map<string, Uint8Array>,
  common: { gteHardfork(h: string): boolean },
): Promise<void> {
  if (!overrides) return;
  for (const [addrHex, o] of overrides) {
    const addr = new Address(Buffer.from(addrHex.slice(2), 'hex'));
    if (o.movePrecompileToAddress) {
      if (!isPrecompile(addr.bytes, common))
        throw new SimulateError(ErrorCode.Server, `account ${addrHex} is not a precompile`);
      const to = bytesToHex(o.movePrecompileToAddress);
      if (to === addrHex)
        throw new SimulateError(ErrorCode.SimMovePrecompileToSelf, `account ${to} is already a precompile`);
      moved.set(to, addr.bytes);
      moved.set(addrHex, new Uint8Array(0));
    }
    if (o.nonce !== undefined) await state.modifyAccountFields(addr, { nonce: o.nonce });
    if (o.code !== undefined) await state.putCode(addr, o.code);
    if (o.balance !== undefined) await state.modifyAccountFields(addr, { balance: o.balance });
    if (o.state && o.stateDiff)
      throw new SimulateError(ErrorCode.InvalidParams, `account ${addrHex} has both 'state' and 'stateDiff'`);
    if (o.state) {
      if (!(await state.getAccount(addr))) await state.putAccount(addr, new Account());
      await state.clearStorage(addr);
      for (const [k, v] of o.state) await state.putStorage(addr, pad32(k), v);
    }
    if (o.stateDiff) {
      if (!(await state.getAccount(addr))) await state.putAccount(addr, new Account());
      for (const [k, v] of o.stateDiff) await state.putStorage(addr, pad32(k), v);
    }
  }
}

/**
 * movePrecompileToAddress: the precompile answers at its new address only. The EIP-2929 warm set
 * stays geth's static list of precompile addresses (the old address warm, the new one cold).
 */
export function movePrecompiles(vm: { evm: unknown }, moved: Map<string, Uint8Array>): void {
  if (moved.size === 0) return;
  const evm = vm.evm as {
    _precompiles: Map<string, unknown>;
    journal: { addAlwaysWarmAddress(a: string, toList?: boolean): void };
  };
  const table = evm._precompiles;
  const fns = new Map<string, unknown>();
  const from = new Set<string>();
  for (const [to, f] of moved) if (f.length) fns.set(to, table.get(bytesToHex(f).slice(2)));
  for (const [to, f] of moved)
    if (!f.length) {
      table.delete(to.slice(2));
      from.add(to.slice(2));
    }
  const movedTo = new Set<string>();
  for (const [to, fn] of fns)
    if (fn) {
      table.set(to.slice(2), fn);
      movedTo.add(to.slice(2));
    }
  const journal = evm.journal;
  const warm = journal.addAlwaysWarmAddress.bind(journal);
  journal.addAlwaysWarmAddress = (address: string, toList?: boolean) => {
    const a = address.startsWith('0x') ? address.slice(2) : address;
    for (const f of from) warm(f);
    if (movedTo.has(a) && !from.has(a)) return;
    warm(address, toList);
  };
}

/** `base` with `overrides` written over it (in memory only), and the precompile moves for the VM. */
export async function overrideState(
  base: StateReader,
  overrides: Map<string, AccountOverride>,
  common: { gteHardfork(h: string): boolean },
): Promise<{ state: JournaledState; moved: Map<string, Uint8Array> }> {
  const state = new JournaledState(base, async () => new Uint8Array(32));
  const moved = new Map<string, Uint8Array>();
  await applyStateOverrides(state, overrides, moved, common);
  return { state, moved };
}
