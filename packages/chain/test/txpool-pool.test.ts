/**
 * The pool's behaviour: replacement, nonce gaps and promotion, limits and eviction, the builder's
 * view (best / onIncluded / onRejected), pendingNonce, status/content and listeners.
 */
import { type Hex, hexToBytes, toHex } from 'viem';
import { beforeEach, describe, expect, test } from 'vitest';
import {
  createTxPool,
  type PoolTransaction,
  type TxPool,
  type TxPoolConfig,
  TxPoolError,
} from '../src/txpool/index.js';
import {
  CHAIN_ID,
  common,
  ETHER,
  FakeState,
  GWEI,
  RECIPIENT,
  type Signer,
  signer,
} from './txpool-helpers.js';

const accounts = Array.from({ length: 8 }, (_, i) => signer(i));
const [alice, bob, carol, dave, erin] = accounts;
const addr = (s: Signer): Hex => s.address.toLowerCase() as Hex;

let state: FakeState;
let baseFee: bigint;
let clock: number;
let pool: TxPool;

function makePool(overrides: Partial<TxPoolConfig> = {}): TxPool {
  return createTxPool({
    common,
    state,
    baseFee: () => baseFee,
    blockGasLimit: () => 30_000_000n,
    now: () => clock++,
    ...overrides,
  });
}

beforeEach(() => {
  state = new FakeState(1000n * ETHER);
  baseFee = 1n;
  clock = 1_000;
  pool = makePool();
});

interface Fields {
  nonce?: number;
  fee?: bigint;
  tip?: bigint;
  gas?: bigint;
  data?: Hex;
  value?: bigint;
}

async function tx(signer: Signer, f: Fields = {}): Promise<Uint8Array> {
  const raw = await signer.signTransaction({
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce: f.nonce ?? 0,
    gas: f.gas ?? 21_000n,
    maxFeePerGas: f.fee ?? 100n * GWEI,
    maxPriorityFeePerGas: f.tip ?? GWEI,
    to: RECIPIENT,
    value: f.value ?? 0n,
    data: f.data,
  });
  return hexToBytes(raw);
}

async function legacyTx(signer: Signer, nonce: number, gasPrice: bigint): Promise<Uint8Array> {
  const raw = await signer.signTransaction({
    type: 'legacy',
    chainId: CHAIN_ID,
    nonce,
    gas: 21_000n,
    gasPrice,
    to: RECIPIENT,
  });
  return hexToBytes(raw);
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TxPoolError);
    return (err as Error).message;
  }
  throw new Error('expected the pool to refuse the transaction');
}

const hashes = (txs: Iterable<PoolTransaction>): Hex[] => [...txs].map((t) => t.hash);
const nonces = (p: TxPool, s: Signer, which: 'pending' | 'queued'): bigint[] => [
  ...(p.content()[which].get(addr(s))?.keys() ?? []),
];

describe('replacement', () => {
  test('+9% on both refused, +10% on both accepted', async () => {
    const old = await pool.add(await tx(alice, { fee: 1000n * GWEI, tip: 100n * GWEI }));
    expect(await refusal(pool.add(await tx(alice, { fee: 1090n * GWEI, tip: 109n * GWEI })))).toBe(
      'replacement transaction underpriced',
    );
    const next = await pool.add(await tx(alice, { fee: 1100n * GWEI, tip: 110n * GWEI }));
    // The replaced transaction is gone from every view.
    expect(pool.get(old.hash)).toBeUndefined();
    expect(pool.get(next.hash)).toBe(next);
    expect(pool.content().pending.get(addr(alice))?.get(0n)).toBe(next);
    expect(hashes(pool.best(baseFee))).toEqual([next.hash]);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
  });

  test('both fee cap and tip must rise by the bump', async () => {
    await pool.add(await tx(alice, { fee: 1000n * GWEI, tip: 100n * GWEI }));
    expect(await refusal(pool.add(await tx(alice, { fee: 2000n * GWEI, tip: 109n * GWEI })))).toBe(
      'replacement transaction underpriced',
    );
    expect(await refusal(pool.add(await tx(alice, { fee: 1099n * GWEI, tip: 200n * GWEI })))).toBe(
      'replacement transaction underpriced',
    );
  });

  test('at wei-level prices the new values must still be strictly higher', async () => {
    await pool.add(await tx(alice, { fee: 5n, tip: 1n }));
    // 5 * 110 / 100 = 5 and 1 * 110 / 100 = 1: equal values are not a bump.
    expect(await refusal(pool.add(await tx(alice, { fee: 5n, tip: 2n })))).toBe(
      'replacement transaction underpriced',
    );
    await pool.add(await tx(alice, { fee: 6n, tip: 2n }));
  });

  test('legacy: the gas price must rise by 10%', async () => {
    await pool.add(await legacyTx(alice, 0, 100n * GWEI));
    expect(await refusal(pool.add(await legacyTx(alice, 0, 109n * GWEI)))).toBe(
      'replacement transaction underpriced',
    );
    await pool.add(await legacyTx(alice, 0, 110n * GWEI));
  });

  test('the bump is configurable', async () => {
    const p = makePool({ priceBump: 50n });
    await p.add(await tx(alice, { fee: 100n * GWEI, tip: 10n * GWEI }));
    expect(await refusal(p.add(await tx(alice, { fee: 149n * GWEI, tip: 15n * GWEI })))).toBe(
      'replacement transaction underpriced',
    );
    await p.add(await tx(alice, { fee: 150n * GWEI, tip: 15n * GWEI }));
  });

  test('a queued transaction is replaced the same way', async () => {
    const old = await pool.add(await tx(alice, { nonce: 3, fee: 100n * GWEI, tip: 10n * GWEI }));
    expect(await refusal(pool.add(await tx(alice, { nonce: 3, fee: 109n * GWEI, tip: 11n * GWEI })))).toBe(
      'replacement transaction underpriced',
    );
    const next = await pool.add(await tx(alice, { nonce: 3, fee: 110n * GWEI, tip: 11n * GWEI }));
    expect(pool.get(old.hash)).toBeUndefined();
    expect(pool.content().queued.get(addr(alice))?.get(3n)).toBe(next);
    expect(pool.status()).toEqual({ pending: 0, queued: 1 });
  });
});

describe('nonce gaps', () => {
  test('a gap filled out of order promotes in order', async () => {
    const t2 = await pool.add(await tx(alice, { nonce: 2 }));
    expect(pool.status()).toEqual({ pending: 0, queued: 1 });
    expect(await pool.pendingNonce(alice.address)).toBe(0n);
    expect(hashes(pool.best(baseFee))).toEqual([]);
    const t0 = await pool.add(await tx(alice, { nonce: 0 }));
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
    expect(await pool.pendingNonce(alice.address)).toBe(1n);
    const t1 = await pool.add(await tx(alice, { nonce: 1 }));
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
    expect(nonces(pool, alice, 'pending')).toEqual([0n, 1n, 2n]);
    expect(await pool.pendingNonce(alice.address)).toBe(3n);
    expect(hashes(pool.best(baseFee))).toEqual([t0.hash, t1.hash, t2.hash]);
  });

  test('queued stay queued until the state nonce reaches them (onIncluded)', async () => {
    const t0 = await pool.add(await tx(alice, { nonce: 0 }));
    await pool.add(await tx(alice, { nonce: 2 }));
    expect(nonces(pool, alice, 'queued')).toEqual([2n]);
    // Nonce 1 was sent elsewhere and executed together with nonce 0.
    state.setNonce(alice, 2n);
    await pool.onIncluded([t0]);
    expect(nonces(pool, alice, 'pending')).toEqual([2n]);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
    expect(await pool.pendingNonce(alice.address)).toBe(3n);
  });

  test('concurrent submissions of consecutive nonces all become pending', async () => {
    const raws = await Promise.all([0, 1, 2, 3].map((n) => tx(alice, { nonce: n })));
    await Promise.all(raws.reverse().map((r) => pool.add(r)));
    expect(pool.status()).toEqual({ pending: 4, queued: 0 });
  });
});

describe('lifetime', () => {
  test('queued transactions older than the lifetime leave; pending ones stay', async () => {
    const p = makePool({ lifetimeMs: 1_000 });
    clock = 0;
    const pending = await p.add(await tx(alice, { nonce: 0 }));
    const old = await p.add(await tx(bob, { nonce: 2 }));
    clock = 900;
    const young = await p.add(await tx(carol, { nonce: 2 }));
    clock = 1_500;
    await p.add(await tx(dave, { nonce: 0 }));
    expect(p.get(old.hash)).toBeUndefined();
    expect(p.get(young.hash)).toBe(young);
    expect(p.get(pending.hash)).toBe(pending);
    expect(p.status()).toEqual({ pending: 2, queued: 1 });
  });
});

describe('pool full: eviction', () => {
  // Capacity 3 = globalSlots 2 + globalQueue 1.
  const full = () => makePool({ globalSlots: 2, globalQueue: 1 });

  test('the cheapest is evicted for a better one; one no better is refused', async () => {
    const p = full();
    await p.add(await tx(alice, { tip: 5n * GWEI }));
    const cheap = await p.add(await tx(bob, { tip: 3n * GWEI }));
    await p.add(await tx(carol, { tip: 4n * GWEI }));
    expect(await refusal(p.add(await tx(dave, { tip: 2n * GWEI })))).toBe('transaction underpriced');
    expect(await refusal(p.add(await tx(dave, { tip: 3n * GWEI })))).toBe('transaction underpriced');
    const better = await p.add(await tx(dave, { tip: 3n * GWEI + 1n }));
    expect(p.get(cheap.hash)).toBeUndefined();
    expect(p.get(better.hash)).toBe(better);
    expect(p.content().pending.has(addr(bob))).toBe(false);
    expect(hashes(p.best(baseFee))).not.toContain(cheap.hash);
    expect(p.status()).toEqual({ pending: 3, queued: 0 });
  });

  test('a sender losing a middle nonce keeps the later ones queued', async () => {
    const p = full();
    await p.add(await tx(alice, { nonce: 0, tip: 5n * GWEI }));
    // Same price: the highest nonce goes first.
    await p.add(await tx(bob, { nonce: 0, tip: 2n * GWEI }));
    const last = await p.add(await tx(bob, { nonce: 1, tip: 2n * GWEI }));
    await p.add(await tx(carol, { tip: 3n * GWEI }));
    expect(p.get(last.hash)).toBeUndefined();
    expect(nonces(p, bob, 'pending')).toEqual([0n]);
  });

  test("a sender's own lower nonces are not evicted for its next one", async () => {
    const p = full();
    await p.add(await tx(alice, { nonce: 0, tip: 1n * GWEI }));
    const b = await p.add(await tx(bob, { tip: 5n * GWEI }));
    await p.add(await tx(carol, { tip: 6n * GWEI }));
    await p.add(await tx(alice, { nonce: 1, tip: 9n * GWEI }));
    expect(nonces(p, alice, 'pending')).toEqual([0n, 1n]);
    expect(p.get(b.hash)).toBeUndefined();
  });

  test('txpool is full when cheaper transactions cannot free enough room', async () => {
    const p = full();
    await p.add(await tx(alice, { tip: 1n * GWEI }));
    await p.add(await tx(bob, { tip: 5n * GWEI }));
    await p.add(await tx(carol, { tip: 5n * GWEI }));
    // ~40 KiB of calldata takes 2 slots; only one transaction is cheaper than it.
    const big = await tx(dave, { tip: 3n * GWEI, gas: 2_000_000n, data: toHex(new Uint8Array(40_000)) });
    expect(await refusal(p.add(big))).toBe('txpool is full');
    expect(p.status()).toEqual({ pending: 3, queued: 0 });
  });

  test('a future transaction may not evict pending ones', async () => {
    const p = full();
    await p.add(await tx(alice, { tip: 1n * GWEI }));
    await p.add(await tx(bob, { tip: 1n * GWEI }));
    await p.add(await tx(carol, { tip: 1n * GWEI }));
    expect(await refusal(p.add(await tx(dave, { nonce: 1, tip: 9n * GWEI })))).toBe(
      'future transaction tries to replace pending',
    );
    await p.add(await tx(dave, { nonce: 0, tip: 9n * GWEI }));
  });

  test('the global queue evicts its cheapest for a better queued one', async () => {
    const p = makePool({ globalQueue: 1 });
    const first = await p.add(await tx(alice, { nonce: 1, tip: 2n * GWEI }));
    const second = await p.add(await tx(bob, { nonce: 1, tip: 3n * GWEI }));
    expect(p.get(first.hash)).toBeUndefined();
    expect(p.get(second.hash)).toBe(second);
    expect(await refusal(p.add(await tx(carol, { nonce: 1, tip: 1n * GWEI })))).toBe('txpool is full');
    expect(p.status()).toEqual({ pending: 0, queued: 1 });
  });

  test('replacing in a full pool needs no room', async () => {
    const p = full();
    await p.add(await tx(alice, { tip: 1n * GWEI }));
    await p.add(await tx(bob, { tip: 1n * GWEI }));
    await p.add(await tx(carol, { tip: 1n * GWEI }));
    await p.add(await tx(alice, { fee: 200n * GWEI, tip: 2n * GWEI }));
    expect(p.status()).toEqual({ pending: 3, queued: 0 });
  });
});

describe('best(baseFee)', () => {
  test('by effective tip across senders, nonce order within a sender', async () => {
    const a0 = await pool.add(await tx(alice, { nonce: 0, tip: 1n * GWEI }));
    const a1 = await pool.add(await tx(alice, { nonce: 1, tip: 50n * GWEI }));
    const b0 = await pool.add(await tx(bob, { nonce: 0, tip: 10n * GWEI }));
    const c0 = await pool.add(await tx(carol, { nonce: 0, tip: 5n * GWEI }));
    // alice's 50-gwei nonce 1 waits behind her 1-gwei nonce 0.
    expect(hashes(pool.best(baseFee))).toEqual([b0.hash, c0.hash, a0.hash, a1.hash]);
  });

  test('from(sender): each sender starts at the nonce the caller asks for, never below its pooled nonce', async () => {
    const a0 = await pool.add(await tx(alice, { nonce: 0, tip: 3n * GWEI }));
    const a1 = await pool.add(await tx(alice, { nonce: 1, tip: 3n * GWEI }));
    const a2 = await pool.add(await tx(alice, { nonce: 2, tip: 3n * GWEI }));
    const b0 = await pool.add(await tx(bob, { nonce: 0, tip: 2n * GWEI }));
    const c0 = await pool.add(await tx(carol, { nonce: 0, tip: 1n * GWEI }));
    // A builder holding alice's 0 and 1 and bob's 0 (executed, not yet reported as included).
    const held = new Map<Hex, bigint>([
      [addr(alice), 2n],
      [addr(bob), 1n],
    ]);
    expect(hashes(pool.best(baseFee, (s) => held.get(s)))).toEqual([a2.hash, c0.hash]);
    // A nonce below the pool's own is no reason to go back; one past the last yields nothing.
    expect(hashes(pool.best(baseFee, () => 0n))).toEqual([a0.hash, a1.hash, a2.hash, b0.hash, c0.hash]);
    expect(hashes(pool.best(baseFee, () => 3n))).toEqual([]);
  });

  test('the effective tip is min(tip, maxFee - baseFee)', async () => {
    const a = await pool.add(await tx(alice, { fee: 100n * GWEI, tip: 50n * GWEI }));
    const b = await pool.add(await tx(bob, { fee: 60n * GWEI, tip: 40n * GWEI }));
    expect(hashes(pool.best(10n * GWEI))).toEqual([a.hash, b.hash]); // 50 vs 40
    expect(hashes(pool.best(30n * GWEI))).toEqual([a.hash, b.hash]); // 50 vs 30
    const c = await pool.add(await tx(carol, { fee: 200n * GWEI, tip: 45n * GWEI }));
    // At 55 gwei: alice min(50, 45) = 45, carol min(45, 145) = 45 (alice came first), bob min(40, 5) = 5.
    expect(hashes(pool.best(55n * GWEI))).toEqual([a.hash, c.hash, b.hash]);
    expect(hashes(pool.best(GWEI))).toEqual([a.hash, c.hash, b.hash]); // 50, 45, 40
  });

  test('a sender whose next transaction cannot pay the base fee is skipped with its later nonces', async () => {
    const a0 = await pool.add(await tx(alice, { nonce: 0, fee: 20n * GWEI, tip: GWEI }));
    await pool.add(await tx(alice, { nonce: 1, fee: 100n * GWEI, tip: GWEI }));
    const b0 = await pool.add(await tx(bob, { fee: 100n * GWEI, tip: GWEI }));
    expect(hashes(pool.best(30n * GWEI))).toEqual([b0.hash]);
    expect(hashes(pool.best(20n * GWEI))).toContain(a0.hash);
  });

  test('equal tips: first come first served', async () => {
    const b = await pool.add(await tx(bob));
    const a = await pool.add(await tx(alice));
    expect(hashes(pool.best(baseFee))).toEqual([b.hash, a.hash]);
  });

  test('a rejection during iteration stops that sender', async () => {
    const a0 = await pool.add(await tx(alice, { nonce: 0, tip: 9n * GWEI }));
    await pool.add(await tx(alice, { nonce: 1, tip: 9n * GWEI }));
    const b0 = await pool.add(await tx(bob, { nonce: 0, tip: 1n * GWEI }));
    const seen: Hex[] = [];
    for (const t of pool.best(baseFee)) {
      seen.push(t.hash);
      if (t.hash === a0.hash) pool.onRejected(t.hash, 'nonce too high');
    }
    expect(seen).toEqual([a0.hash, b0.hash]);
  });
});

describe('onIncluded / onRejected', () => {
  test('included transactions leave; the rest stay pending; pendingNonce follows', async () => {
    const t = [];
    for (let n = 0; n < 4; n++) t.push(await pool.add(await tx(alice, { nonce: n })));
    state.setNonce(alice, 2n);
    await pool.onIncluded([t[0], t[1]]);
    expect(pool.get(t[0].hash)).toBeUndefined();
    expect(pool.get(t[1].hash)).toBeUndefined();
    expect(nonces(pool, alice, 'pending')).toEqual([2n, 3n]);
    expect(await pool.pendingNonce(alice.address)).toBe(4n);
    expect(hashes(pool.best(baseFee))).toEqual([t[2].hash, t[3].hash]);
  });

  test('stale nonces are dropped when the state moved further than the included ones', async () => {
    const t0 = await pool.add(await tx(alice, { nonce: 0 }));
    const t1 = await pool.add(await tx(alice, { nonce: 1 }));
    const t2 = await pool.add(await tx(alice, { nonce: 2 }));
    state.setNonce(alice, 2n); // a replacement of nonce 1 came from elsewhere
    await pool.onIncluded([t0]);
    expect(pool.get(t1.hash)).toBeUndefined();
    expect(pool.get(t2.hash)).toBe(t2);
    expect(nonces(pool, alice, 'pending')).toEqual([2n]);
  });

  test('transactions the remaining balance cannot pay are dropped, later ones queued', async () => {
    const cost = 21_000n * 100n * GWEI;
    const t0 = await pool.add(await tx(alice, { nonce: 0 }));
    const t1 = await pool.add(await tx(alice, { nonce: 1, value: 10n * ETHER }));
    const t2 = await pool.add(await tx(alice, { nonce: 2 }));
    state.setNonce(alice, 1n);
    state.balances.set(addr(alice), 5n * ETHER + cost);
    await pool.onIncluded([t0]);
    expect(pool.get(t1.hash)).toBeUndefined();
    expect(pool.get(t2.hash)).toBe(t2);
    expect(nonces(pool, alice, 'queued')).toEqual([2n]);
    expect(await pool.pendingNonce(alice.address)).toBe(1n);
  });

  test('onRejected removes the transaction; later pending ones become queued', async () => {
    const t = [];
    for (let n = 0; n < 3; n++) t.push(await pool.add(await tx(alice, { nonce: n })));
    pool.onRejected(t[1].hash, 'insufficient funds');
    expect(pool.get(t[1].hash)).toBeUndefined();
    expect(nonces(pool, alice, 'pending')).toEqual([0n]);
    expect(nonces(pool, alice, 'queued')).toEqual([2n]);
    expect(await pool.pendingNonce(alice.address)).toBe(1n);
    // Resubmitting the gap promotes again.
    await pool.add(await tx(alice, { nonce: 1, tip: 2n * GWEI }));
    expect(nonces(pool, alice, 'pending')).toEqual([0n, 1n, 2n]);
  });

  test('unknown hashes and foreign transactions are ignored', async () => {
    pool.onRejected('0x1234', 'whatever');
    const other = makePool();
    const foreign = await other.add(await tx(erin));
    await pool.onIncluded([foreign]);
    expect(pool.status()).toEqual({ pending: 0, queued: 0 });
  });
});

describe('state reads', () => {
  test('getAccount, when the reader has it, answers nonce and balance in one read', async () => {
    const reads: string[] = [];
    const p = makePool({
      state: {
        getNonce: async () => {
          throw new Error('not used');
        },
        getBalance: async () => {
          throw new Error('not used');
        },
        getAccount: async (address) => {
          reads.push(address);
          return { nonce: 3n, balance: ETHER };
        },
      },
    });
    const t = await p.add(await tx(alice, { nonce: 3 }));
    expect(reads).toEqual([addr(alice)]);
    expect(t.nonce).toBe(3n);
  });
});

describe('views and listeners', () => {
  test('pendingNonce of an unknown account is the state nonce', async () => {
    state.setNonce(bob, 7n);
    expect(await pool.pendingNonce(bob.address)).toBe(7n);
  });

  test('content groups by lowercase sender then nonce', async () => {
    await pool.add(await tx(alice, { nonce: 1 }));
    await pool.add(await tx(alice, { nonce: 0 }));
    await pool.add(await tx(bob, { nonce: 5 }));
    await pool.add(await tx(bob, { nonce: 3 }));
    const { pending, queued } = pool.content();
    expect([...pending.keys()]).toEqual([addr(alice)]);
    expect([...(pending.get(addr(alice))?.keys() ?? [])]).toEqual([0n, 1n]);
    expect([...(queued.get(addr(bob))?.keys() ?? [])]).toEqual([3n, 5n]);
    expect(pool.status()).toEqual({ pending: 2, queued: 2 });
  });

  test('onAdded sees every accepted transaction (pending, queued, replacement), not refusals', async () => {
    const seen: Hex[] = [];
    const off = pool.onAdded((t) => seen.push(t.hash));
    const a = await pool.add(await tx(alice, { nonce: 0 }));
    const b = await pool.add(await tx(alice, { nonce: 2 }));
    const c = await pool.add(await tx(alice, { nonce: 0, fee: 200n * GWEI, tip: 2n * GWEI }));
    await refusal(pool.add(await tx(alice, { nonce: 0, fee: 200n * GWEI, tip: 2n * GWEI })));
    expect(seen).toEqual([a.hash, b.hash, c.hash]);
    off();
    await pool.add(await tx(bob));
    expect(seen).toHaveLength(3);
  });

  test('a throwing listener does not refuse the transaction', async () => {
    pool.onAdded(() => {
      throw new Error('subscriber broke');
    });
    const t = await pool.add(await tx(alice));
    expect(pool.get(t.hash)).toBe(t);
  });
});

describe('a rising base fee reorders eviction', () => {
  test('the effective tip at the current base fee decides who is cheapest', async () => {
    const p = makePool({ globalSlots: 1, globalQueue: 1 });
    // At base fee 1 gwei: alice pays 10 (tip), bob 5. At 95 gwei: alice min(10, 5) = 5, bob min(5, 105) = 5,
    // then the fee cap decides: alice (100) is cheaper than bob (200).
    baseFee = GWEI;
    const a = await p.add(await tx(alice, { fee: 100n * GWEI, tip: 10n * GWEI }));
    const b = await p.add(await tx(bob, { fee: 200n * GWEI, tip: 5n * GWEI }));
    baseFee = 95n * GWEI;
    await p.add(await tx(carol, { fee: 300n * GWEI, tip: 6n * GWEI }));
    expect(p.get(a.hash)).toBeUndefined();
    expect(p.get(b.hash)).toBe(b);
  });
});

describe('random operations keep the views consistent', () => {
  test('status, content, get, best and pendingNonce agree after every step', async () => {
    const senders = accounts.slice(0, 5);
    const signed: Uint8Array[] = [];
    for (const [i, s] of senders.entries()) {
      for (let n = 0; n < 12; n++) {
        for (const tip of [1n, 3n, 5n, 8n]) {
          signed.push(await tx(s, { nonce: n, tip: tip * GWEI + BigInt(i), fee: (tip + 1n) * 30n * GWEI }));
        }
      }
    }
    let seed = 42;
    const random = (k: number): number => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % k;
    };
    const p = makePool({ globalSlots: 7, globalQueue: 3, accountSlots: 2, accountQueue: 2, lifetimeMs: 40 });
    for (let step = 0; step < 400; step++) {
      const op = random(10);
      const { pending } = p.content();
      if (op < 8) {
        // Mostly near the sender's next nonce, sometimes stale or far ahead.
        const i = random(senders.length);
        const base = Number(await p.pendingNonce(senders[i].address));
        const n = Math.min(11, Math.max(0, base - 1 + random(4)));
        await p.add(signed[(i * 12 + n) * 4 + random(4)]).catch((err) => {
          if (!(err instanceof TxPoolError)) throw err;
        });
      } else if (op < 9) {
        const s = senders[random(senders.length)];
        const first = pending.get(addr(s))?.values().next().value;
        if (first) {
          state.setNonce(s, first.nonce + 1n);
          await p.onIncluded([first]);
        }
      } else {
        const all = [...pending.values()].flatMap((m) => [...m.values()]);
        if (all.length > 0) p.onRejected(all[random(all.length)].hash, 'random');
      }

      const content = p.content();
      const count = (m: Map<Hex, Map<bigint, PoolTransaction>>) =>
        [...m.values()].reduce((n, x) => n + x.size, 0);
      expect(p.status()).toEqual({ pending: count(content.pending), queued: count(content.queued) });
      expect(count(content.pending) + count(content.queued)).toBeLessThanOrEqual(10);
      for (const s of senders) {
        const stateNonce = await state.getNonce(s.address);
        const mine = [...(content.pending.get(addr(s))?.keys() ?? [])];
        expect(mine).toEqual(mine.map((_, i) => stateNonce + BigInt(i)));
        const next = stateNonce + BigInt(mine.length);
        for (const n of content.queued.get(addr(s))?.keys() ?? []) expect(n > next).toBe(true);
        expect(await p.pendingNonce(s.address)).toBe(next);
        for (const which of [content.pending, content.queued]) {
          for (const [n, t] of which.get(addr(s)) ?? []) {
            expect(t.nonce).toBe(n);
            expect(t.sender).toBe(addr(s));
            expect(p.get(t.hash)).toBe(t);
          }
        }
      }
      const order = [...p.best(1n)];
      expect(order).toHaveLength(count(content.pending));
      const lastNonce = new Map<Hex, bigint>();
      for (const t of order) {
        const prev = lastNonce.get(t.sender);
        if (prev !== undefined) expect(t.nonce).toBe(prev + 1n);
        lastNonce.set(t.sender, t.nonce);
      }
    }
  });
});
