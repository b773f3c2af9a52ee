/**
 * Plain transfers applied without the EVM (execution/plainTransfer.ts), from the pool's decoded
 * fields as the builder applies them, against runTx itself:
 * random sequences of transfers (every type, fresh, existing-empty, self, zero-address and
 * coinbase recipients, contracts, 7702 delegations, precompiles, wrong nonces, short funds, fees
 * under the base fee) run on two overlays of the same state, one through the fast path (runTx
 * for whatever it leaves), one through runTx alone. Every outcome, gas figure, receipt and the
 * overlays' whole diffs must be equal, and every transfer the fast path covers must take it.
 */
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { Account, KECCAK256_NULL, privateToAddress } from '@ethereumjs/util';
import { encodeReceipt, runTx } from '@ethereumjs/vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { PlainTransfers, type TransferFields, transferFields } from '../src/execution/plainTransfer.js';
import { createVm } from '../src/execution/vmFactory.js';
import { bytesToHex, hexToBytes } from '../src/primitives/hex.js';
import { JournaledState } from '../src/state/journaledState.js';
import type { StateReader } from '../src/state/stateReader.js';
import { decodeRawTransaction } from '../src/txpool/decode.js';
import { rng } from './rng.js';

const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;

/** An in-memory world state to stack the overlays on. */
class MemoryState implements StateReader {
  readonly accounts = new Map<string, Account>();
  readonly codes = new Map<string, Uint8Array>();
  async readAccount(address: Uint8Array) {
    return this.accounts.get(bytesToHex(address));
  }
  async readStorage() {
    return new Uint8Array(0);
  }
  async readCode(codeHash: Uint8Array) {
    return this.codes.get(bytesToHex(codeHash)) ?? new Uint8Array(0);
  }
  set(address: Uint8Array, balance: bigint, code?: Uint8Array, nonce = 0n): void {
    const codeHash = code ? keccak256(code) : KECCAK256_NULL;
    if (code) this.codes.set(bytesToHex(codeHash), code);
    this.accounts.set(bytesToHex(address), new Account(nonce, balance, undefined, codeHash));
  }
}

const key = (i: number) => {
  const k = new Uint8Array(32);
  k[31] = i;
  k[0] = 0x42;
  return k;
};
const addr = (hex: string) => hexToBytes(hex);

interface World {
  base: MemoryState;
  senders: { key: Uint8Array; address: Uint8Array }[];
  /**
   * Recipients: `plain` have no code and are no precompile (but for a delegated sender and 0x100,
   * which gain code or a precompile in later forks); `notPlain` are a contract, a delegation and
   * the precompiles 0x01 and 0x0b (a precompile from Prague on).
   */
  plain: Uint8Array[];
  notPlain: Uint8Array[];
}

function world(hardfork: Hardfork, coinbase: Uint8Array): World {
  const base = new MemoryState();
  const senders = [1, 2, 3, 4].map((i) => ({ key: key(i), address: privateToAddress(key(i)) }));
  for (const s of senders) base.set(s.address, 5n * ETHER);
  // One sender is 7702-delegated where that exists: it may send, but only through runTx.
  const delegation = Uint8Array.from([0xef, 0x01, 0x00, ...new Uint8Array(19), 0x99]);
  if (hardfork === Hardfork.Prague || hardfork === Hardfork.Osaka)
    base.set(senders[3].address, 5n * ETHER, delegation);
  const contract = addr('0x00000000000000000000000000000000000c0de0');
  base.set(contract, 1n, Uint8Array.from([0x60, 0x01, 0x60, 0x00, 0x55, 0x00])); // SSTORE 0 := 1
  const delegated = addr('0x0000000000000000000000000000000000de1e9a');
  base.set(delegated, 0n, delegation);
  const emptyExisting = addr('0x00000000000000000000000000000000000e3e11');
  base.set(emptyExisting, 0n);
  const funded = addr('0x000000000000000000000000000000000000f00d');
  base.set(funded, 3n);
  const fresh = (n: number) => addr(`0x${(0xa0000 + n).toString(16).padStart(40, '0')}`);
  return {
    base,
    senders,
    plain: [
      fresh(1),
      fresh(2),
      emptyExisting,
      funded,
      new Uint8Array(20),
      coinbase,
      senders[0].address,
      senders[3].address, // delegated from Prague on: has code, so not plain there
      addr('0x0000000000000000000000000000000000000100'), // P256VERIFY from Osaka on
      addr('0x0000000000000000000000000000000000000012'), // past Prague's last precompile
    ],
    notPlain: [
      contract,
      delegated,
      addr('0x0000000000000000000000000000000000000001'),
      addr('0x000000000000000000000000000000000000000b'),
    ],
  };
}

function sign(
  common: Common,
  r: () => number,
  from: { key: Uint8Array },
  nonce: bigint,
  to: Uint8Array,
  baseFee: bigint,
): TypedTransaction {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const value = pick([0n, 1n, 10n ** 15n, 10n ** 15n, 4n * ETHER, 6n * ETHER]);
  const gasLimit = pick([21_000n, 21_000n, 30_000n, 20_999n, 1n << 24n]);
  const data = r() < 0.1 ? Uint8Array.of(1) : new Uint8Array(0);
  const accessList = r() < 0.1 ? [{ address: bytesToHex(to), storageKeys: [] }] : [];
  const price = pick([
    0n,
    baseFee > 0n ? baseFee - 1n : 0n,
    baseFee,
    baseFee + GWEI,
    baseFee + GWEI,
    50n * GWEI,
  ]);
  const type = pick(common.isActivatedEIP(1559) ? [0, 1, 2, 2] : [0, 1]);
  const fields = { nonce, to: bytesToHex(to), value, gasLimit, data };
  if (type === 0) return createLegacyTx({ ...fields, gasPrice: price }, { common }).sign(from.key);
  if (type === 1)
    return createAccessList2930Tx({ ...fields, gasPrice: price, accessList }, { common }).sign(from.key);
  const maxFeePerGas = price;
  const tip = pick([0n, 1n, GWEI, maxFeePerGas + 1n]);
  return createFeeMarket1559Tx(
    { ...fields, accessList, maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip },
    { common },
  ).sign(from.key);
}

/** An overlay's whole diff, comparable with toEqual: accounts and slot overlays in write order. */
function diffOf(state: JournaledState) {
  const d = state.diff();
  return {
    accounts: [...d.accounts].map(([k, a]) => [k, a ? bytesToHex(a.serialize()) : null]),
    storage: [...d.storage].map(([k, o]) => [k, o.cleared, [...o.slots].map(([s, v]) => [s, bytesToHex(v)])]),
    code: [...d.code.keys()],
  };
}

async function runSequence(
  hardfork: Hardfork,
  seed: number,
  baseFee: bigint,
  coinbaseKind: 'zero' | 'other' | 'sender',
) {
  const r = rng(seed);
  const common = new Common({ chain: Mainnet, hardfork });
  const senderCoinbase = privateToAddress(key(2));
  const coinbase =
    coinbaseKind === 'zero'
      ? new Uint8Array(20)
      : coinbaseKind === 'sender'
        ? senderCoinbase
        : addr('0x00000000000000000000000000000000c01ba5e0');
  const w = world(hardfork, coinbase);
  const block = createBlock(
    {
      header: {
        number: 1n,
        timestamp: 1n,
        gasLimit: 60_000_000n,
        coinbase,
        baseFeePerGas: common.isActivatedEIP(1559) ? baseFee : undefined,
        excessBlobGas: common.isActivatedEIP(4844) ? 0n : undefined,
        blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
  const transfers = PlainTransfers.for(common, block.header);
  expect(transfers, 'covered fork').toBeDefined();
  const blocks = { hashOf: async () => undefined } as never;
  const fastState = new JournaledState(w.base);
  const refState = new JournaledState(w.base);
  const fastVm = await createVm(common, fastState, blocks);
  const refVm = await createVm(common, refState, blocks);
  const nonces = w.senders.map(() => 0n);
  let fastGas = 0n;
  let refGas = 0n;
  let fastTaken = 0;
  let fastExpected = 0;
  const run = async (vm: typeof fastVm, tx: TypedTransaction, gasUsed: bigint) =>
    runTx(vm, { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true }).then(
      (res) => ({
        ok: true as const,
        gas: res.totalGasSpent,
        receipt: bytesToHex(encodeReceipt(res.receipt, tx.type)),
      }),
      (e: Error) => ({ ok: false as const, error: e.message }),
    );
  for (let i = 0; i < 16; i++) {
    const s = Math.floor(r() * w.senders.length);
    const to =
      r() < 0.8 ? w.plain[Math.floor(r() * w.plain.length)] : w.notPlain[Math.floor(r() * w.notPlain.length)];
    const nonce = r() < 0.1 ? nonces[s] + 1n : nonces[s];
    const tx = sign(common, r, w.senders[s], nonce, to, baseFee);
    const sender = w.senders[s].address;

    // The builder's path: the pool's decoded fields, no transaction object; read off the object
    // (a follower's, a dev method's), the same fields.
    const pooled = decodeRawTransaction(tx.serialize());
    const fields = (f: TransferFields) => ({
      type: f.type,
      to: f.to && bytesToHex(f.to),
      data: bytesToHex(f.data),
      accessListAddresses: f.accessListAddresses,
      nonce: f.nonce,
      gasLimit: f.gasLimit,
      value: f.value,
      maxFeePerGas: f.maxFeePerGas,
      maxPriorityFeePerGas: f.maxPriorityFeePerGas,
    });
    expect(fields(transferFields(tx))).toEqual(fields(pooled));
    const fast = await transfers!.apply(fastState, pooled, sender, fastGas);
    const got = fast
      ? { ok: true as const, gas: fast.totalGasSpent, receipt: bytesToHex(fast.encodedReceipt) }
      : await run(fastVm, tx, fastGas);
    const want = await run(refVm, tx, refGas);
    const where = `seed ${seed} tx ${i} (${hardfork}, type ${tx.type}, to ${bytesToHex(to)})`;
    expect(got, where).toEqual(want);
    expect(diffOf(fastState), where).toEqual(diffOf(refState));
    if (fast) fastTaken++;
    // What the fast path must take: every transfer runTx accepts, with no data, no access list,
    // between accounts without code, to no precompile.
    const toCode = (await w.base.readAccount(to))?.codeHash;
    const fromCode = (await w.base.readAccount(sender))?.codeHash;
    const plainShape =
      tx.data.length === 0 &&
      !('accessList' in tx && (tx.accessList as unknown[]).length) &&
      (!toCode || bytesToHex(toCode) === bytesToHex(KECCAK256_NULL)) &&
      (!fromCode || bytesToHex(fromCode) === bytesToHex(KECCAK256_NULL)) &&
      !isPrecompileIn(common, to);
    if (want.ok && plainShape) fastExpected++;
    if (want.ok) {
      nonces[s]++;
      fastGas += want.gas;
      refGas += want.gas;
    }
  }
  return { fastTaken, fastExpected };
}

/** The precompiles among the test's recipients, by fork (written out, not the table under test). */
function isPrecompileIn(common: Common, to: Uint8Array): boolean {
  const n = BigInt(bytesToHex(to));
  return (
    n === 1n ||
    (n === 0x0bn && common.gteHardfork(Hardfork.Prague)) ||
    (n === 0x100n && common.gteHardfork(Hardfork.Osaka))
  );
}

describe('plain transfers without the EVM', () => {
  beforeAll(() => initKeccak());

  for (const hardfork of [
    Hardfork.London,
    Hardfork.Shanghai,
    Hardfork.Cancun,
    Hardfork.Prague,
    Hardfork.Osaka,
  ]) {
    it(`makes runTx's writes, outcomes and receipts exactly (${hardfork})`, async () => {
      let taken = 0;
      let expected = 0;
      for (let seed = 1; seed <= 16; seed++) {
        const baseFee = seed % 3 === 0 ? 0n : 7n * GWEI;
        const coinbase = (['zero', 'other', 'sender'] as const)[seed % 3];
        const { fastTaken, fastExpected } = await runSequence(hardfork, seed * 7919, baseFee, coinbase);
        taken += fastTaken;
        expected += fastExpected;
      }
      // Every transfer of the covered shape took the fast path, and there were many.
      expect(taken).toBe(expected);
      expect(taken).toBeGreaterThan(40);
    });
  }

  it('leaves forks it does not cover to runTx', () => {
    const header = (common: Common) =>
      createBlock(
        { header: { number: 1n, gasLimit: 30_000_000n } },
        { common, skipConsensusFormatValidation: true },
      ).header;
    const berlin = new Common({ chain: Mainnet, hardfork: Hardfork.Berlin });
    expect(PlainTransfers.for(berlin, header(berlin))).toBeUndefined();
    const extra = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, eips: [7708] });
    expect(PlainTransfers.for(extra, header(extra))).toBeUndefined();
  });
});
