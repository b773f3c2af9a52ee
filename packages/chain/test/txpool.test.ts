/**
 * The pool's refusals: every error from a real signed transaction, on both sides of its boundary.
 * Transactions are signed by viem (or, where viem refuses to sign a malformed one, by a raw
 * RLP encoder below); the account state is a fake (the pool's state is not under test).
 */
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP } from '@ethereumjs/tx';
import { type Hex, hexToBytes, keccak256, toHex } from 'viem';
import { sign } from 'viem/accounts';
import { beforeEach, describe, expect, test } from 'vitest';
import { createTxPool, type TxPool, type TxPoolConfig, TxPoolError } from '../src/txpool/index.js';
import { etherTwoDecimals } from '../src/txpool/feeCap.js';
import {
  CHAIN_ID,
  common,
  ETHER,
  eip1559,
  type Fields,
  FakeState,
  GWEI,
  keyOf,
  RECIPIENT,
  type Signer,
  signer,
} from './txpool-helpers.js';

const alice = signer(0);
const bob = signer(1);

let state: FakeState;
let baseFee: bigint;
let pool: TxPool;

function makePool(overrides: Partial<TxPoolConfig> = {}): TxPool {
  return createTxPool({
    common,
    state,
    baseFee: () => baseFee,
    blockGasLimit: () => 30_000_000n,
    ...overrides,
  });
}

beforeEach(() => {
  state = new FakeState();
  state.set(alice.address, 0n, 1000n * ETHER);
  state.set(bob.address, 0n, 1000n * ETHER);
  baseFee = 1n;
  pool = makePool();
});

async function legacy(signer: Signer, f: Fields & { gasPrice?: bigint } = {}): Promise<Uint8Array> {
  const raw = await signer.signTransaction({
    type: 'legacy',
    chainId: f.chainId,
    nonce: f.nonce ?? 0,
    gas: f.gas ?? 21_000n,
    gasPrice: f.gasPrice ?? 10n * GWEI,
    to: RECIPIENT,
    value: f.value ?? 0n,
    data: f.data,
  });
  return hexToBytes(raw);
}

const BIG = (n: bigint): Uint8Array => (n === 0n ? new Uint8Array() : hexToBytes(toHex(n)));
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * A type-2 transaction encoded and signed by hand, for shapes viem will not sign
 * (tip above fee cap) and for tampered signatures.
 */
async function raw1559(
  key: Hex,
  f: Required<Pick<Fields, 'maxFeePerGas' | 'maxPriorityFeePerGas'>> & { nonce?: bigint; chainId?: bigint },
  tamper?: (sig: { yParity: bigint; r: bigint; s: bigint }) => { yParity: bigint; r: bigint; s: bigint },
): Promise<Uint8Array> {
  const body = [
    BIG(f.chainId ?? BigInt(CHAIN_ID)),
    BIG(f.nonce ?? 0n),
    BIG(f.maxPriorityFeePerGas),
    BIG(f.maxFeePerGas),
    BIG(21_000n),
    hexToBytes(RECIPIENT),
    BIG(0n),
    new Uint8Array(),
    [],
  ];
  const unsigned = RLP.encode(body);
  const hash = keccak256(new Uint8Array([2, ...unsigned]));
  const s = await sign({ hash, privateKey: key });
  let sig = { yParity: BigInt(s.yParity ?? 0), r: BigInt(s.r), s: BigInt(s.s) };
  if (tamper) sig = tamper(sig);
  const signed = RLP.encode([...body, BIG(sig.yParity), BIG(sig.r), BIG(sig.s)]);
  return new Uint8Array([2, ...signed]);
}

/** A type-4 transaction with an empty authorization list, which viem will not sign. */
async function rawSetCodeWithoutAuthorizations(key: Hex): Promise<Uint8Array> {
  const body = [
    BIG(BigInt(CHAIN_ID)),
    BIG(0n),
    BIG(GWEI),
    BIG(10n * GWEI),
    BIG(100_000n),
    hexToBytes(RECIPIENT),
    BIG(0n),
    new Uint8Array(),
    [],
    [],
  ];
  const hash = keccak256(new Uint8Array([4, ...RLP.encode(body)]));
  const s = await sign({ hash, privateKey: key });
  const signed = RLP.encode([...body, BIG(BigInt(s.yParity ?? 0)), BIG(BigInt(s.r)), BIG(BigInt(s.s))]);
  return new Uint8Array([4, ...signed]);
}

async function refusal(p: Promise<unknown>): Promise<TxPoolError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TxPoolError);
    expect((err as TxPoolError).code).toBe(-32000);
    return err as TxPoolError;
  }
  throw new Error('expected the pool to refuse the transaction');
}

describe('transaction types', () => {
  test('accepts legacy (EIP-155), EIP-2930, EIP-1559 and EIP-7702', async () => {
    await pool.add(await legacy(alice, { chainId: CHAIN_ID, nonce: 0 }));
    const al = await alice.signTransaction({
      type: 'eip2930',
      chainId: CHAIN_ID,
      nonce: 1,
      gas: 30_000n,
      gasPrice: 10n * GWEI,
      to: RECIPIENT,
      accessList: [{ address: RECIPIENT, storageKeys: [] }],
    });
    await pool.add(hexToBytes(al));
    await pool.add(await eip1559(alice, { nonce: 2 }));
    const authorization = await bob.signAuthorization({
      contractAddress: RECIPIENT,
      chainId: CHAIN_ID,
      nonce: 0,
    });
    const setCode = await alice.signTransaction({
      type: 'eip7702',
      chainId: CHAIN_ID,
      nonce: 3,
      gas: 50_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
      to: RECIPIENT,
      authorizationList: [authorization],
    });
    const ptx = await pool.add(hexToBytes(setCode));
    expect(ptx.tx.type).toBe(4);
    expect(pool.status()).toEqual({ pending: 4, queued: 0 });
  });

  test('the pooled transaction carries the hash, sender and prices', async () => {
    const raw = await eip1559(alice, {
      maxFeePerGas: 7n * GWEI,
      maxPriorityFeePerGas: 3n * GWEI,
      gas: 25_000n,
    });
    const ptx = await pool.add(raw);
    expect(ptx.hash).toBe(keccak256(raw));
    expect(ptx.sender).toBe(alice.address.toLowerCase());
    expect(ptx.maxFeePerGas).toBe(7n * GWEI);
    expect(ptx.maxPriorityFeePerGas).toBe(3n * GWEI);
    expect(ptx.gasLimit).toBe(25_000n);
    expect(ptx.nonce).toBe(0n);
    expect(pool.get(ptx.hash)).toBe(ptx);
    expect(pool.get(ptx.hash.toUpperCase().replace('0X', '0x') as Hex)).toBe(ptx);
  });

  test('the recovered sender matches @ethereumjs/tx for every accepted type', async () => {
    const open = makePool({ allowUnprotected: true });
    const auth = await bob.signAuthorization({ contractAddress: RECIPIENT, chainId: CHAIN_ID, nonce: 0 });
    const raws = [
      await legacy(alice, { chainId: CHAIN_ID, nonce: 0 }),
      await legacy(alice, { chainId: undefined, nonce: 1 }),
      hexToBytes(
        await alice.signTransaction({
          type: 'eip2930',
          chainId: CHAIN_ID,
          nonce: 2,
          gas: 30_000n,
          gasPrice: 10n * GWEI,
          to: RECIPIENT,
          accessList: [{ address: RECIPIENT, storageKeys: [toHex(1n, { size: 32 })] }],
        }),
      ),
      await eip1559(alice, { nonce: 3, data: '0x00aa', gas: 30_000n }),
      hexToBytes(
        await alice.signTransaction({
          type: 'eip7702',
          chainId: CHAIN_ID,
          nonce: 4,
          gas: 60_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
          to: RECIPIENT,
          authorizationList: [auth],
        }),
      ),
    ];
    for (const raw of raws) {
      const ptx = await open.add(raw);
      expect(ptx.sender).toBe(alice.address.toLowerCase());
      expect(ptx.tx.getSenderAddress().toString()).toBe(ptx.sender);
      expect(toHex(ptx.tx.hash())).toBe(ptx.hash);
    }
    expect(open.status()).toEqual({ pending: 5, queued: 0 });
  });

  test('transactions built for the builder share one Common and cost what a fresh build says', async () => {
    const raws = [
      await eip1559(alice, { nonce: 0, data: '0x00aa0000ff', gas: 30_000n }),
      await eip1559(alice, { nonce: 1, to: null, data: '0x6000', gas: 60_000n }),
      hexToBytes(
        await alice.signTransaction({
          type: 'eip2930',
          chainId: CHAIN_ID,
          nonce: 2,
          gas: 30_000n,
          gasPrice: 10n * GWEI,
          to: RECIPIENT,
          accessList: [{ address: RECIPIENT, storageKeys: [toHex(1n, { size: 32 })] }],
        }),
      ),
    ];
    const built = [];
    for (const raw of raws) built.push((await pool.add(raw)).tx);
    for (const [i, tx] of built.entries()) {
      const fresh = createTxFromRLP(raws[i], { common });
      expect(tx.getIntrinsicGas()).toBe(fresh.getIntrinsicGas());
      expect(tx.getDataGas()).toBe(fresh.getDataGas());
      expect(tx.common.hardfork()).toBe(common.hardfork());
      expect(tx.common).toBe(built[0].common);
    }
    // The pool's own Common is not the shared one, and still copies itself.
    expect(built[0].common).not.toBe(common);
    expect(common.copy()).not.toBe(common);
  });

  test('a legacy v that is neither 27/28 nor EIP-155 is an invalid sender', async () => {
    const body = [BIG(0n), BIG(GWEI), BIG(21_000n), hexToBytes(RECIPIENT), BIG(0n), new Uint8Array()];
    const raw = RLP.encode([...body, BIG(30n), BIG(1n), BIG(1n)]);
    expect((await refusal(pool.add(raw))).message).toBe('invalid sender: invalid transaction v, r, s values');
  });

  test('legacy: gas price is both fee cap and tip', async () => {
    const ptx = await pool.add(await legacy(alice, { chainId: CHAIN_ID, gasPrice: 5n * GWEI }));
    expect(ptx.maxFeePerGas).toBe(5n * GWEI);
    expect(ptx.maxPriorityFeePerGas).toBe(5n * GWEI);
  });

  test.each([
    ['blob (0x03)', 0x03, 'transaction type not supported: tx type 3 not supported by this pool'],
    ['deposit (0x7e)', 0x7e, 'transaction type not supported'],
    ['unknown (0x05)', 0x05, 'transaction type not supported'],
  ])('refuses %s with `transaction type not supported`', async (_name, type, message) => {
    const payload = RLP.encode([BIG(1n), BIG(0n), BIG(1n), BIG(1n), BIG(21_000n), hexToBytes(RECIPIENT)]);
    const err = await refusal(pool.add(new Uint8Array([type, ...payload])));
    expect(err.message).toBe(message);
  });

  test('undecodable bytes are refused with an `rlp:` error', async () => {
    expect((await refusal(pool.add(hexToBytes('0xf8ff0001')))).message).toMatch(/^rlp: /);
    expect((await refusal(pool.add(hexToBytes('0x02c0')))).message).toBe(
      'rlp: too few elements for types.DynamicFeeTx',
    );
    expect((await refusal(pool.add(new Uint8Array()))).message).toBe('typed transaction too short');
    const good = await eip1559(alice);
    expect((await refusal(pool.add(new Uint8Array([...good, 0x00])))).message).toMatch(/^rlp: /);
  });
});

describe('submission checks (geth RPC layer)', () => {
  test('tx fee exactly at the 1 ether cap is accepted, above it refused', async () => {
    // 50,000 gas * 20,000 gwei = 1 ether.
    await pool.add(await eip1559(alice, { gas: 50_000n, maxFeePerGas: 20_000n * GWEI }));
    const err = await refusal(
      pool.add(await eip1559(alice, { nonce: 1, gas: 50_000n, maxFeePerGas: 20_000n * GWEI + 1n })),
    );
    expect(err.message).toBe('tx fee (1.00 ether) exceeds the configured cap (1.00 ether)');
    const big = await refusal(
      pool.add(await eip1559(alice, { nonce: 1, gas: 75_000n, maxFeePerGas: 20_000n * GWEI })),
    );
    expect(big.message).toBe('tx fee (1.50 ether) exceeds the configured cap (1.00 ether)');
  });

  test('the cap is configurable and 0 turns it off', async () => {
    const capped = makePool({ txFeeCap: ETHER / 100n });
    const err = await refusal(capped.add(await eip1559(alice, { gas: 21_000n, maxFeePerGas: 10n ** 12n })));
    expect(err.message).toBe('tx fee (0.02 ether) exceeds the configured cap (0.01 ether)');
    const uncapped = makePool({ txFeeCap: 0n });
    await uncapped.add(await eip1559(alice, { gas: 100_000n, maxFeePerGas: 20_000n * GWEI }));
  });

  test('ether amounts print like Go %.2f (round half to even on exact ties)', () => {
    expect(etherTwoDecimals(ETHER)).toBe('1.00');
    expect(etherTwoDecimals((ETHER * 1125n) / 1000n)).toBe('1.12');
    expect(etherTwoDecimals((ETHER * 1375n) / 1000n)).toBe('1.38');
    expect(etherTwoDecimals((ETHER * 1006n) / 1000n)).toBe('1.01');
    expect(etherTwoDecimals(0n)).toBe('0.00');
  });

  test('unprotected (pre-EIP-155) legacy transactions are refused unless allowed', async () => {
    const raw = await legacy(alice, { chainId: undefined });
    const err = await refusal(pool.add(raw));
    expect(err.message).toBe('only replay-protected (EIP-155) transactions allowed over RPC');
    const open = makePool({ allowUnprotected: true });
    const ptx = await open.add(raw);
    expect(ptx.sender).toBe(alice.address.toLowerCase());
  });

  test('already known: the identical transaction twice', async () => {
    const raw = await eip1559(alice);
    await pool.add(raw);
    expect((await refusal(pool.add(raw))).message).toBe('already known');
    expect((await refusal(pool.add(raw.slice()))).message).toBe('already known');
  });
});

describe('stateless validation', () => {
  /** A call whose encoded size is exactly `size` bytes (zero-byte calldata). */
  async function ofSize(size: number, nonce: number): Promise<Uint8Array> {
    let dataLength = size - 200;
    for (;;) {
      const raw = await eip1559(alice, { nonce, gas: 2_000_000n, data: toHex(new Uint8Array(dataLength)) });
      if (raw.length === size) return raw;
      dataLength += size - raw.length;
    }
  }

  test('oversized data: 128 KiB accepted, one byte more refused', async () => {
    const exact = await ofSize(128 * 1024, 0);
    expect(exact.length).toBe(131_072);
    await pool.add(exact);
    const over = await ofSize(128 * 1024 + 1, 1);
    const err = await refusal(pool.add(over));
    expect(err.message).toBe('oversized data: transaction size 131073, limit 131072');
  });

  test('initcode of 49,152 bytes accepted, 49,153 refused', async () => {
    await pool.add(await eip1559(alice, { to: null, gas: 600_000n, data: toHex(new Uint8Array(49_152)) }));
    const err = await refusal(
      pool.add(
        await eip1559(alice, { nonce: 1, to: null, gas: 600_000n, data: toHex(new Uint8Array(49_153)) }),
      ),
    );
    expect(err.message).toBe('max initcode size exceeded: code size 49153, limit 49152');
  });

  test('exceeds block gas limit: equal accepted, one more refused', async () => {
    const small = makePool({ blockGasLimit: () => 100_000n });
    await small.add(await eip1559(alice, { gas: 100_000n }));
    const err = await refusal(small.add(await eip1559(alice, { nonce: 1, gas: 100_001n })));
    expect(err.message).toBe('exceeds block gas limit');
  });

  test('max priority fee above max fee refused; equal accepted', async () => {
    await pool.add(await raw1559(keyOf(0), { maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 5n * GWEI }));
    const err = await refusal(
      pool.add(
        await raw1559(keyOf(0), { nonce: 1n, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 5n * GWEI + 1n }),
      ),
    );
    expect(err.message).toBe(
      'max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: 5000000001, maxFeePerGas: 5000000000',
    );
  });

  test('invalid sender: a high-s or zero-r signature', async () => {
    const prices = { maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: GWEI };
    await pool.add(await raw1559(keyOf(0), prices)); // the untampered one is fine
    const highS = await raw1559(keyOf(0), { ...prices, nonce: 1n }, (sig) => ({
      yParity: 1n - sig.yParity,
      r: sig.r,
      s: SECP256K1_N - sig.s,
    }));
    expect((await refusal(pool.add(highS))).message).toMatch(/^invalid sender: /);
    const zeroR = await raw1559(keyOf(0), { ...prices, nonce: 1n }, (sig) => ({ ...sig, r: 0n }));
    expect((await refusal(pool.add(zeroR))).message).toMatch(/^invalid sender/);
    const badParity = await raw1559(keyOf(0), { ...prices, nonce: 1n }, (sig) => ({ ...sig, yParity: 2n }));
    expect((await refusal(pool.add(badParity))).message).toMatch(/^invalid sender/);
  });

  test('invalid chain id for signer: typed and EIP-155 legacy', async () => {
    const typed = await refusal(pool.add(await eip1559(alice, { chainId: 1 })));
    expect(typed.message).toBe('invalid chain id for signer: have 1 want 31337');
    const old = await refusal(pool.add(await legacy(alice, { chainId: 1 })));
    expect(old.message).toBe('invalid chain id for signer: have 1 want 31337');
  });

  describe('intrinsic gas: exact accepted, one less refused', () => {
    const cases: [string, Fields, bigint][] = [
      ['a transfer', {}, 21_000n],
      ['a creation with initcode words', { to: null, data: '0x6001600055' }, 53_000n + 4n * 16n + 4n + 2n],
      [
        'an access list (2 addresses, 3 keys)',
        {
          accessList: [
            { address: RECIPIENT, storageKeys: [toHex(1n, { size: 32 }), toHex(2n, { size: 32 })] },
            { address: alice.address, storageKeys: [toHex(3n, { size: 32 })] },
          ],
        },
        21_000n + 2n * 2_400n + 3n * 1_900n,
      ],
      [
        'calldata with zero and non-zero bytes',
        { data: '0x00ff00ff', accessList: [{ address: RECIPIENT, storageKeys: [] }] },
        21_000n + 2n * 4n + 2n * 16n + 2_400n,
      ],
    ];
    test.each(cases)('%s', async (_name, fields, gas) => {
      await pool.add(await eip1559(alice, { ...fields, gas }));
      const err = await refusal(pool.add(await eip1559(alice, { ...fields, nonce: 1, gas: gas - 1n })));
      expect(err.message).toBe(`intrinsic gas too low: gas ${gas - 1n}, minimum needed ${gas}`);
    });

    test('EIP-7702 authorizations cost 25,000 each', async () => {
      const auths = [
        await bob.signAuthorization({ contractAddress: RECIPIENT, chainId: CHAIN_ID, nonce: 0 }),
        await bob.signAuthorization({ contractAddress: RECIPIENT, chainId: CHAIN_ID, nonce: 1 }),
      ];
      const setCode = (nonce: number, gas: bigint) =>
        alice.signTransaction({
          type: 'eip7702',
          chainId: CHAIN_ID,
          nonce,
          gas,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
          to: RECIPIENT,
          authorizationList: auths,
        });
      await pool.add(hexToBytes(await setCode(0, 71_000n)));
      const err = await refusal(pool.add(hexToBytes(await setCode(1, 70_999n))));
      expect(err.message).toBe('intrinsic gas too low: gas 70999, minimum needed 71000');
    });
  });

  test('Prague floor data gas (EIP-7623): exact accepted, one less refused', async () => {
    // 1,000 non-zero bytes: intrinsic 21,000 + 16,000; floor 21,000 + 10 * 4,000.
    const data = toHex(new Uint8Array(1000).fill(0xab));
    await pool.add(await eip1559(alice, { data, gas: 61_000n }));
    const floor = await refusal(pool.add(await eip1559(alice, { nonce: 1, data, gas: 60_999n })));
    expect(floor.message).toBe('insufficient gas for floor data gas cost: gas 60999, minimum needed 61000');
    const intrinsic = await refusal(pool.add(await eip1559(alice, { nonce: 1, data, gas: 36_999n })));
    expect(intrinsic.message).toBe('intrinsic gas too low: gas 36999, minimum needed 37000');
  });

  test('EIP-7702 without authorizations is refused', async () => {
    const err = await refusal(pool.add(await rawSetCodeWithoutAuthorizations(keyOf(0))));
    expect(err.message).toBe('set code tx must have at least one authorization tuple');
  });

  test('nonce 2^64-1 is refused (EIP-2681); 2^64-2 is accepted (queued)', async () => {
    const prices = { maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: GWEI };
    const err = await refusal(pool.add(await raw1559(keyOf(0), { ...prices, nonce: 2n ** 64n - 1n })));
    expect(err.message).toMatch(/^nonce has max value: /);
    await pool.add(await raw1559(keyOf(0), { ...prices, nonce: 2n ** 64n - 2n }));
    expect(pool.status()).toEqual({ pending: 0, queued: 1 });
  });

  test('transaction underpriced: a tip below the pool minimum', async () => {
    const err = await refusal(pool.add(await eip1559(alice, { maxPriorityFeePerGas: 0n })));
    expect(err.message).toBe('transaction underpriced: gas tip cap 0, minimum needed 1');
    await pool.add(await eip1559(alice, { maxPriorityFeePerGas: 1n }));
    const strict = makePool({ priceLimit: GWEI });
    const e2 = await refusal(strict.add(await eip1559(bob, { maxPriorityFeePerGas: GWEI - 1n })));
    expect(e2.message).toBe('transaction underpriced: gas tip cap 999999999, minimum needed 1000000000');
    await strict.add(await eip1559(bob, { maxPriorityFeePerGas: GWEI }));
  });

  test('max fee per gas below the base fee refused; equal accepted', async () => {
    baseFee = 2n * GWEI;
    const err = await refusal(
      pool.add(await eip1559(alice, { maxFeePerGas: 2n * GWEI - 1n, maxPriorityFeePerGas: 1n })),
    );
    expect(err.message).toBe(
      `max fee per gas less than block base fee: address ${alice.address.toLowerCase()}, maxFeePerGas: 1999999999, baseFee: 2000000000`,
    );
    const legacyLow = await refusal(pool.add(await legacy(alice, { chainId: CHAIN_ID, gasPrice: GWEI })));
    expect(legacyLow.message).toMatch(/^max fee per gas less than block base fee: /);
    await pool.add(await eip1559(alice, { maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: 1n }));
  });
});

describe('validation against state', () => {
  test('nonce too low: below the state nonce refused, equal accepted', async () => {
    state.set(alice.address, 5n, 1000n * ETHER);
    const err = await refusal(pool.add(await eip1559(alice, { nonce: 3 })));
    expect(err.message).toBe('nonce too low: next nonce 5, tx nonce 3');
    await pool.add(await eip1559(alice, { nonce: 5 }));
  });

  test('insufficient funds: one wei short refused, exact accepted', async () => {
    const cost = 21_000n * 10n * GWEI + 7n;
    state.set(alice.address, 0n, cost - 1n);
    const err = await refusal(pool.add(await eip1559(alice, { value: 7n })));
    expect(err.message).toBe(
      `insufficient funds for gas * price + value: balance ${cost - 1n}, tx cost ${cost}, overshot 1`,
    );
    state.set(alice.address, 0n, cost);
    await pool.add(await eip1559(alice, { value: 7n }));
  });

  test('insufficient funds counts the pending transactions of the sender', async () => {
    const cost = 21_000n * 10n * GWEI;
    state.set(alice.address, 0n, 2n * cost - 1n);
    await pool.add(await eip1559(alice, { nonce: 0 }));
    const err = await refusal(pool.add(await eip1559(alice, { nonce: 1 })));
    expect(err.message).toBe(
      `insufficient funds for gas * price + value: balance ${2n * cost - 1n}, queued cost ${cost}, tx cost ${cost}, overshot 1`,
    );
    state.set(alice.address, 0n, 2n * cost);
    await pool.add(await eip1559(alice, { nonce: 1 }));
  });

  test('insufficient funds for a replacement counts only the bump', async () => {
    const cost = 21_000n * 10n * GWEI;
    const bumped = 21_000n * 11n * GWEI;
    state.set(alice.address, 0n, bumped - 1n);
    await pool.add(await eip1559(alice));
    const err = await refusal(
      pool.add(await eip1559(alice, { maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: 2n * GWEI })),
    );
    expect(err.message).toMatch(
      /^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot 1$/,
    );
    state.set(alice.address, 0n, bumped);
    await pool.add(await eip1559(alice, { maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: 2n * GWEI }));
    expect(cost).toBeLessThan(bumped);
  });
});

describe('limits', () => {
  test('account limit exceeded: the account queue is full', async () => {
    const small = makePool({ accountQueue: 2 });
    await small.add(await eip1559(alice, { nonce: 1 }));
    await small.add(await eip1559(alice, { nonce: 2 }));
    const err = await refusal(small.add(await eip1559(alice, { nonce: 3 })));
    expect(err.message).toBe('account limit exceeded: pooled 2 txs');
    // Filling the gap is always possible (it is executable, not queued).
    await small.add(await eip1559(alice, { nonce: 0 }));
    expect(small.status()).toEqual({ pending: 3, queued: 0 });
  });

  test('account limit exceeded: over accountSlots while global pending is full', async () => {
    const small = makePool({ accountSlots: 2, globalSlots: 3, globalQueue: 10 });
    for (let n = 0; n < 3; n++) await small.add(await eip1559(alice, { nonce: n }));
    const err = await refusal(small.add(await eip1559(alice, { nonce: 3 })));
    expect(err.message).toBe('account limit exceeded: pooled 3 txs');
    // Another sender still has its guaranteed slots.
    await small.add(await eip1559(bob, { nonce: 0 }));
  });
});
