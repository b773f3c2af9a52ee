/**
 * Blob transactions (type 3) in the pool: accepted with real KZG verification on chains imported
 * from a geth genesis with Cancun (Prague: the EIP-4844 network form, one proof per blob; Osaka:
 * the EIP-7594 form, 128 cell proofs per blob), refused on wharf's own dev chain. The Commons
 * come from loadChainSpec, as the node's do. Transactions are RLP-encoded and signed here.
 *
 * The test blob's commitment and proofs are in txpool-blobs.fixture.json (cell proofs take ~11 s
 * to compute in pure JS); `WHARF_WRITE_BLOB_FIXTURE=1 npx vitest run packages/chain/test/txpool-blobs`
 * writes it again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { sha256 } from '@noble/hashes/sha2.js';
import { type Hex, hexToBytes, keccak256, toHex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type GethGenesis, loadChainSpec } from '../src/chainspec/chainConfig.js';
import { loadKzg } from '../src/chainspec/customCrypto.js';
import { initKeccak } from '../src/crypto/keccak.js';
import {
  createTxPool,
  type PoolStateReader,
  type TxPool,
  type TxPoolConfig,
  TxPoolError,
} from '../src/txpool/index.js';

const CHAIN_ID = 1337;
const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
const GAS_PER_BLOB = 131072n;
import { eip1559 } from './txpool-helpers.js';

const FIXTURE = new URL('./txpool-blobs.fixture.json', import.meta.url);
const aliceKey: Hex = `0x${'01'.padStart(64, '0')}`;
const bobKey: Hex = `0x${'02'.padStart(64, '0')}`;
const alice = privateKeyToAccount(aliceKey);
const RECIPIENT = hexToBytes('0x00000000000000000000000000000000000000aa');

/** The test blob: field element i = i * 0x9e3779b97f4a7c15 + 0x1234 (far below the BLS modulus). */
function testBlob(): Uint8Array {
  const blob = new Uint8Array(131072);
  for (let i = 0; i < 4096; i++) {
    const element = BigInt(i) * 0x9e3779b97f4a7c15n + 0x1234n;
    blob.set(hexToBytes(toHex(element, { size: 32 })), i * 32);
  }
  return blob;
}

interface Fixture {
  commitment: Hex;
  /** EIP-4844: one proof for the whole blob. */
  blobProof: Hex;
  /** EIP-7594: one proof per cell, cells 0..127. */
  cellProofs: Hex[];
}

test.runIf(process.env.WHARF_WRITE_BLOB_FIXTURE === '1')(
  'writes the blob fixture',
  { timeout: 300_000 },
  async () => {
    const kzg = await loadKzg();
    const blob = toHex(testBlob());
    const commitment = kzg.blobToKzgCommitment(blob) as Hex;
    const fixture: Fixture = {
      commitment,
      blobProof: kzg.computeBlobProof(blob, commitment) as Hex,
      cellProofs: kzg.computeCellsAndProofs(blob)[1] as Hex[],
    };
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`);
  },
);

const BLOB = testBlob();
let COMMITMENT: Uint8Array;
let BLOB_PROOF: Uint8Array;
let CELL_PROOFS: Uint8Array[];
/** The blob's versioned hash: 0x01 || sha256(commitment)[1:]. */
let HASH: Uint8Array;

beforeAll(() => {
  if (process.env.WHARF_WRITE_BLOB_FIXTURE === '1') return;
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
  COMMITMENT = hexToBytes(fixture.commitment);
  BLOB_PROOF = hexToBytes(fixture.blobProof);
  CELL_PROOFS = fixture.cellProofs.map((p) => hexToBytes(p));
  HASH = sha256(COMMITMENT);
  HASH[0] = 0x01;
});

// --- encoding and signing --------------------------------------------------------------------

const BIG = (n: bigint): Uint8Array => (n === 0n ? new Uint8Array() : hexToBytes(toHex(n)));

interface BlobTxFields {
  nonce?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerGas?: bigint;
  gas?: bigint;
  to?: Uint8Array;
  value?: bigint;
  maxFeePerBlobGas?: bigint;
  hashes?: Uint8Array[];
}

interface Sidecar {
  /** 1: the EIP-7594 form (version byte, cell proofs); null: the EIP-4844 form (no version byte). */
  version: number | null;
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  proofs: Uint8Array[];
}

const osakaSidecar = (): Sidecar => ({
  version: 1,
  blobs: [BLOB],
  commitments: [COMMITMENT],
  proofs: [...CELL_PROOFS],
});
const pragueSidecar = (): Sidecar => ({
  version: null,
  blobs: [BLOB],
  commitments: [COMMITMENT],
  proofs: [BLOB_PROOF],
});

/** A signed blob transaction: its network form (or the canonical one with `sidecar` null) and hash. */
async function blobTx(
  key: Hex,
  f: BlobTxFields,
  sidecar: Sidecar | null,
): Promise<{ raw: Uint8Array; hash: Hex }> {
  const unsigned = [
    BIG(BigInt(CHAIN_ID)),
    BIG(f.nonce ?? 0n),
    BIG(f.maxPriorityFeePerGas ?? GWEI),
    BIG(f.maxFeePerGas ?? 10n * GWEI),
    BIG(f.gas ?? 21_000n),
    f.to ?? RECIPIENT,
    BIG(f.value ?? 0n),
    new Uint8Array(),
    [],
    BIG(f.maxFeePerBlobGas ?? 10n),
    f.hashes ?? [HASH],
  ];
  const s = await sign({ hash: keccak256(new Uint8Array([3, ...RLP.encode(unsigned)])), privateKey: key });
  const body = [...unsigned, BIG(BigInt(s.yParity ?? 0)), BIG(BigInt(s.r)), BIG(BigInt(s.s))];
  const signed = new Uint8Array([3, ...RLP.encode(body)]);
  if (sidecar === null) return { raw: signed, hash: keccak256(signed) };
  const version = sidecar.version === null ? [] : [BIG(BigInt(sidecar.version))];
  const wrapper = RLP.encode([body, ...version, sidecar.blobs, sidecar.commitments, sidecar.proofs]);
  return { raw: new Uint8Array([3, ...wrapper]), hash: keccak256(signed) };
}

// --- chains ----------------------------------------------------------------------------------

const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

/** A geth genesis with every fork through Shanghai at genesis, and `forks` (timestamps) after it. */
function gethGenesis(forks: Record<string, number>): GethGenesis {
  const blockForks = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg'];
  const config: GethGenesis['config'] = { chainId: CHAIN_ID };
  for (const f of [...blockForks, 'istanbul', 'berlin', 'london', 'mergeNetsplit']) config[`${f}Block`] = 0;
  Object.assign(config, {
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
    ...forks,
    blobSchedule: BLOB_SCHEDULE,
  });
  return {
    config,
    alloc: {},
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x1',
  };
}

/** The Common of block 1 (timestamp 12) of a chain imported from `genesis`, as the node's pending block has. */
async function importedCommon(genesis: GethGenesis): Promise<Common> {
  const common = (await loadChainSpec({ kind: 'geth', genesis })).common.copy();
  common.setHardforkBy({ blockNumber: 1n, timestamp: 12n });
  return common;
}

let osaka: Common;
let prague: Common;
let preCancun: Common;
let dev: Common;

beforeAll(async () => {
  await initKeccak();
  osaka = await importedCommon(gethGenesis({ cancunTime: 0, pragueTime: 0, osakaTime: 0 }));
  prague = await importedCommon(gethGenesis({ cancunTime: 0, pragueTime: 0 }));
  preCancun = await importedCommon(gethGenesis({ cancunTime: 1000 }));
  dev = (
    await loadChainSpec({
      kind: 'dev',
      chainId: String(CHAIN_ID),
      gasLimit: '30000000',
      baseFee: '1',
      accounts: 1,
      mnemonic: 'test test test test test test test test test test test junk',
      balance: '0',
      timestamp: 0,
    })
  ).common;
});

// --- pool ------------------------------------------------------------------------------------

let balances: Map<string, bigint>;
const state: PoolStateReader = {
  getNonce: async () => 0n,
  getBalance: async (a) => balances.get(a.toLowerCase()) ?? 1000n * ETHER,
};

function poolOn(common: Common, overrides: Partial<TxPoolConfig> = {}): TxPool {
  return createTxPool({ common, state, baseFee: () => 1n, blockGasLimit: () => 30_000_000n, ...overrides });
}

beforeEach(() => {
  balances = new Map();
});

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TxPoolError);
    expect((err as TxPoolError).code).toBe(-32000);
    return (err as TxPoolError).message;
  }
  throw new Error('expected the pool to refuse the transaction');
}

describe('accepted on imported chains', () => {
  test('Osaka: the EIP-7594 form (cell proofs); hashed without the sidecar, stored, never in best()', async () => {
    const pool = poolOn(osaka);
    const { raw, hash } = await blobTx(aliceKey, { maxFeePerBlobGas: 7n }, osakaSidecar());
    const ptx = await pool.add(raw);
    expect(ptx.hash).toBe(hash);
    expect(ptx.raw).toEqual(raw);
    expect(ptx.sender).toBe(alice.address.toLowerCase());
    expect(ptx.maxFeePerBlobGas).toBe(7n);
    expect(pool.get(hash)).toBe(ptx);
    expect(ptx.tx.type).toBe(3);
    expect(toHex(ptx.tx.hash())).toBe(hash);
    expect((ptx.tx as unknown as { blobVersionedHashes: Hex[] }).blobVersionedHashes).toEqual([toHex(HASH)]);
    expect(pool.content().pending.get(ptx.sender)?.get(0n)).toBe(ptx);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
    // The builder makes blocks without blobs: it is never handed one.
    expect([...pool.best(1n)]).toEqual([]);
  });

  test('Prague: the EIP-4844 form (one proof per blob)', async () => {
    const pool = poolOn(prague);
    const { raw, hash } = await blobTx(aliceKey, {}, pragueSidecar());
    expect((await pool.add(raw)).hash).toBe(hash);
  });

  test('the cost counts the blob gas: exactly enough is accepted, one wei less refused', async () => {
    const f = { gas: 21_000n, maxFeePerGas: 10n * GWEI, value: 5n, maxFeePerBlobGas: 3n };
    const cost = 21_000n * 10n * GWEI + 5n + GAS_PER_BLOB * 3n;
    balances.set(alice.address.toLowerCase(), cost - 1n);
    const { raw } = await blobTx(aliceKey, f, osakaSidecar());
    expect(await refusal(poolOn(osaka).add(raw))).toBe(
      `insufficient funds for gas * price + value: balance ${cost - 1n}, tx cost ${cost}, overshot 1`,
    );
    balances.set(alice.address.toLowerCase(), cost);
    await poolOn(osaka).add(raw);
  });
});

describe('refused', () => {
  test("on wharf's own dev chain: transaction type not supported", async () => {
    const { raw } = await blobTx(aliceKey, {}, osakaSidecar());
    expect(await refusal(poolOn(dev).add(raw))).toBe(
      'transaction type not supported: tx type 3 not supported by this pool',
    );
  });

  test('on an imported chain before Cancun', async () => {
    const { raw } = await blobTx(aliceKey, {}, pragueSidecar());
    expect(await refusal(poolOn(preCancun).add(raw))).toBe(
      'transaction type not supported: type 3 rejected, pool not yet in Cancun',
    );
  });

  test('a wrong cell proof (two proofs swapped): KZG verification error', async () => {
    const sidecar = osakaSidecar();
    [sidecar.proofs[0], sidecar.proofs[1]] = [sidecar.proofs[1], sidecar.proofs[0]];
    const { raw } = await blobTx(aliceKey, {}, sidecar);
    expect(await refusal(poolOn(osaka).add(raw))).toBe('KZG verification error: proof does not verify');
  });

  test('a wrong blob proof (EIP-4844 form): KZG verification error', async () => {
    const sidecar = pragueSidecar();
    sidecar.proofs = [CELL_PROOFS[5]];
    const { raw } = await blobTx(aliceKey, {}, sidecar);
    expect(await refusal(poolOn(prague).add(raw))).toBe(
      'KZG verification error: invalid blob proof: blob 0: proof does not verify',
    );
  });

  test('a blob that is not the committed one: KZG verification error', async () => {
    const sidecar = osakaSidecar();
    const blob = BLOB.slice();
    blob[100] ^= 1;
    sidecar.blobs = [blob];
    const { raw } = await blobTx(aliceKey, {}, sidecar);
    expect(await refusal(poolOn(osaka).add(raw))).toMatch(/^KZG verification error: /);
  });

  test('a versioned hash that does not match its commitment', async () => {
    const wrong = HASH.slice();
    wrong[31] ^= 0xff;
    const { raw } = await blobTx(aliceKey, { hashes: [wrong] }, osakaSidecar());
    expect(await refusal(poolOn(osaka).add(raw))).toBe(
      `blob 0: computed hash ${toHex(HASH)} mismatches transaction one ${toHex(wrong)}`,
    );
  });

  test('the sidecar version of another fork', async () => {
    const v0 = await blobTx(aliceKey, {}, pragueSidecar());
    expect(await refusal(poolOn(osaka).add(v0.raw))).toBe('unexpected sidecar version, want: 1, got: 0');
    const v1 = await blobTx(aliceKey, {}, osakaSidecar());
    expect(await refusal(poolOn(prague).add(v1.raw))).toBe('unexpected sidecar version, want: 0, got: 1');
    const v2 = await blobTx(aliceKey, {}, { ...osakaSidecar(), version: 2 });
    expect(await refusal(poolOn(osaka).add(v2.raw))).toBe('unsupported blob tx version 2');
  });

  test('the canonical form, without blobs', async () => {
    const { raw } = await blobTx(aliceKey, {}, null);
    expect(await refusal(poolOn(osaka).add(raw))).toBe('missing sidecar in blob transaction');
  });

  test('blob counts: none, more than the fork allows, blobs, commitments or proofs not matching', async () => {
    const pool = poolOn(osaka);
    const none = await blobTx(
      aliceKey,
      { hashes: [] },
      { ...osakaSidecar(), blobs: [], commitments: [], proofs: [] },
    );
    expect(await refusal(pool.add(none.raw))).toBe('blobless blob transaction');
    // Osaka: at most 6 per transaction (EIP-7594), whatever the per-block maximum (9).
    const seven = await blobTx(aliceKey, { hashes: Array(7).fill(HASH) }, osakaSidecar());
    expect(await refusal(pool.add(seven.raw))).toBe('too many blobs in transaction: have 7, permitted 6');
    // Prague: the blob schedule's max per block, 9.
    const ten = await blobTx(aliceKey, { hashes: Array(10).fill(HASH) }, pragueSidecar());
    expect(await refusal(poolOn(prague).add(ten.raw))).toBe(
      'too many blobs in transaction: have 10, permitted 9',
    );
    const two = await blobTx(aliceKey, { hashes: [HASH, HASH] }, osakaSidecar());
    expect(await refusal(pool.add(two.raw))).toBe('invalid number of 1 blobs compared to 2 blob hashes');
    const commitments = await blobTx(
      aliceKey,
      {},
      { ...osakaSidecar(), commitments: [COMMITMENT, COMMITMENT] },
    );
    expect(await refusal(pool.add(commitments.raw))).toBe(
      'invalid number of 2 blob commitments compared to 1 blob hashes',
    );
    const proofs = await blobTx(aliceKey, {}, { ...osakaSidecar(), proofs: CELL_PROOFS.slice(1) });
    expect(await refusal(pool.add(proofs.raw))).toBe('invalid number of 127 blob proofs expected 128');
  });

  test('blob fee cap: below 1 wei, below the blob base fee of the block being built', async () => {
    const zero = await blobTx(aliceKey, { maxFeePerBlobGas: 0n }, osakaSidecar());
    expect(await refusal(poolOn(osaka).add(zero.raw))).toBe(
      'transaction underpriced: blob fee cap 0, minimum needed 1',
    );
    const pool = poolOn(osaka, { blobBaseFee: () => 6n });
    const low = await blobTx(aliceKey, { maxFeePerBlobGas: 5n }, osakaSidecar());
    expect(await refusal(pool.add(low.raw))).toBe(
      `max fee per blob gas less than block blob gas fee: address ${alice.address.toLowerCase()} blobGasFeeCap: 5, blobBaseFee: 6`,
    );
    const enough = await blobTx(aliceKey, { maxFeePerBlobGas: 6n }, osakaSidecar());
    await pool.add(enough.raw);
  });

  test('malformed: a contract creation, a blob of the wrong size', async () => {
    const create = await blobTx(aliceKey, { to: new Uint8Array() }, osakaSidecar());
    expect(await refusal(poolOn(osaka).add(create.raw))).toBe(
      'rlp: input string too short for common.Address, decoding into (types.BlobTx).To',
    );
    const short = await blobTx(aliceKey, {}, { ...osakaSidecar(), blobs: [BLOB.subarray(1)] });
    expect(await refusal(poolOn(osaka).add(short.raw))).toBe(
      'rlp: input string too short for kzg4844.Blob, decoding into (types.blobTxWithBlobsV1).Blobs',
    );
  });
});

describe('in the pool', () => {
  test("a sender's pooled transactions are all blob or all not: address already reserved", async () => {
    const pool = poolOn(osaka);
    await pool.add((await blobTx(aliceKey, { nonce: 0n }, osakaSidecar())).raw);
    const bob = privateKeyToAccount(bobKey);
    const transfer = (nonce: number) => eip1559(alice, { nonce, chainId: CHAIN_ID, to: bob.address });
    expect(await refusal(pool.add(await transfer(1)))).toBe('address already reserved');
    const other = poolOn(osaka);
    await other.add(await transfer(0));
    const blob = await blobTx(aliceKey, { nonce: 1n }, osakaSidecar());
    expect(await refusal(other.add(blob.raw))).toBe('address already reserved');
  });

  test('a replacement raises the blob fee cap too', async () => {
    const pool = poolOn(osaka);
    await pool.add((await blobTx(aliceKey, { maxFeePerBlobGas: 10n }, osakaSidecar())).raw);
    const fees = { maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    const same = await blobTx(aliceKey, { ...fees, maxFeePerBlobGas: 10n }, osakaSidecar());
    expect(await refusal(pool.add(same.raw))).toBe('replacement transaction underpriced');
    const bumped = await blobTx(aliceKey, { ...fees, maxFeePerBlobGas: 11n }, osakaSidecar());
    expect((await pool.add(bumped.raw)).hash).toBe(bumped.hash);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
  });
});
