/**
 * The pool survives a restart through its journal (reloaded and re-validated), and the
 * txpool_* RPC methods (rpc/txpool.ts) answer geth's shapes from its views.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { getAddress, hexToBytes, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { nativeEcrecover } from '../src/crypto/ecrecover.js';
import type { RpcContext } from '../src/rpc/context.js';
import { Params } from '../src/rpc/params.js';
import { txpoolMethods } from '../src/rpc/txpool.js';
import {
  APPEND_BATCH_MS,
  attachJournal,
  createFileTxJournal,
  createTxPool,
  type PoolStateReader,
  type TxPool,
} from '../src/txpool/index.js';

const CHAIN_ID = 31337;
const GWEI = 10n ** 9n;
const common = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, {
  hardfork: Hardfork.Prague,
  customCrypto: { ecrecover: nativeEcrecover },
});
const RECIPIENT = '0x00000000000000000000000000000000000000aa' as const;
const alice = privateKeyToAccount(`0x${'01'.padStart(64, '0')}`);
const bob = privateKeyToAccount(`0x${'02'.padStart(64, '0')}`);
type Signer = typeof alice;

const nonces = new Map<string, bigint>();
const state: PoolStateReader = {
  getNonce: async (a) => nonces.get(a.toLowerCase()) ?? 0n,
  getBalance: async () => 10n ** 21n,
};
const newPool = (): TxPool =>
  createTxPool({ common, state, baseFee: () => 1n, blockGasLimit: () => 30_000_000n });

async function tx(
  signer: Signer,
  nonce: number,
  extra: { to?: null; value?: bigint } = {},
): Promise<Uint8Array> {
  return hexToBytes(
    await signer.signTransaction({
      type: 'eip1559',
      chainId: CHAIN_ID,
      nonce,
      gas: extra.to === null ? 60_000n : 21_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      to: extra.to === null ? undefined : RECIPIENT,
      value: extra.value ?? 0n,
    }),
  );
}

let dir: string;
beforeEach(async () => {
  nonces.clear();
  dir = await mkdtemp(join(tmpdir(), 'wharf-txpool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('journal', () => {
  test('accepted transactions are reloaded after a restart and re-validated', async () => {
    const path = join(dir, 'txpool', 'journal.bin');
    const before = newPool();
    const journal = createFileTxJournal(path);
    const attached = await attachJournal(before, journal);
    expect(attached).toMatchObject({ loaded: 0, dropped: 0 });
    const a0 = await before.add(await tx(alice, 0));
    const a1 = await before.add(await tx(alice, 1));
    const b5 = await before.add(await tx(bob, 5));
    await journal.close(); // a crash after the writes reached the file

    // While the node was down, alice's nonce 0 was included.
    nonces.set(alice.address.toLowerCase(), 1n);
    const after = newPool();
    const reattached = await attachJournal(after, createFileTxJournal(path));
    expect(reattached).toMatchObject({ loaded: 2, dropped: 1 });
    expect(after.get(a0.hash)).toBeUndefined();
    expect(after.get(a1.hash)?.raw).toEqual(a1.raw);
    expect(after.get(b5.hash)).toBeDefined();
    expect(after.status()).toEqual({ pending: 1, queued: 1 });
    await reattached.stop();
  });

  test('rotation keeps exactly what the pool holds', async () => {
    const path = join(dir, 'journal.bin');
    const pool = newPool();
    const journal = createFileTxJournal(path);
    const attached = await attachJournal(pool, journal, { rotateMs: 0 });
    const a0 = await pool.add(await tx(alice, 0));
    const a1 = await pool.add(await tx(alice, 1));
    pool.onRejected(a0.hash, 'test');
    await attached.stop();
    const raws = await createFileTxJournal(path).load();
    expect(raws.map((r) => toHex(r))).toEqual([toHex(a1.raw)]);
  });

  test('appends reach the file within the batch window, without a close', async () => {
    const path = join(dir, 'journal.bin');
    const journal = createFileTxJournal(path);
    const raws = [await tx(alice, 0), await tx(alice, 1), await tx(alice, 2)];
    for (const r of raws) journal.append(r);
    const deadline = Date.now() + 2000;
    let loaded: Uint8Array[] = [];
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, APPEND_BATCH_MS));
      loaded = await createFileTxJournal(path).load();
      if (loaded.length === raws.length) break;
    }
    expect(loaded.map((r) => toHex(r))).toEqual(raws.map((r) => toHex(r)));
    await journal.close();
  });

  test('a transaction that leaves the pool within the hold is never written; one still pooled is', async () => {
    const path = join(dir, 'journal.bin');
    const pool = newPool();
    const holdMs = 150;
    const journal = createFileTxJournal(path, undefined, holdMs);
    // The builder journals its pre-confirmations (interval mode).
    const attached = await attachJournal(pool, journal, {
      rotateMs: 0,
      preconfirmationsJournaled: () => true,
    });
    const a0 = await pool.add(await tx(alice, 0));
    const b0 = await pool.add(await tx(bob, 0));
    const written = async () => (await createFileTxJournal(path).load()).map((r) => toHex(r));
    // Held: nothing yet, though the batch window (10 ms) has long passed.
    await new Promise((r) => setTimeout(r, holdMs / 2));
    expect(await written()).toEqual([]);
    // alice's is pre-confirmed (leaves the pool) before its write is due.
    nonces.set(alice.address.toLowerCase(), 1n);
    await pool.onIncluded([a0]);
    const deadline = Date.now() + 2000;
    let got: string[] = [];
    while (Date.now() < deadline && got.length === 0) {
      await new Promise((r) => setTimeout(r, APPEND_BATCH_MS));
      got = await written();
    }
    expect(got).toEqual([toHex(b0.raw)]);
    await new Promise((r) => setTimeout(r, holdMs));
    expect(await written()).toEqual([toHex(b0.raw)]);
    await attached.stop();
  });

  test('without a journal of pre-confirmations (a block per transaction), an append is not held, and written though it left the pool', async () => {
    const path = join(dir, 'journal.bin');
    const pool = newPool();
    const journal = createFileTxJournal(path, undefined, 150);
    let journaled = false;
    const attached = await attachJournal(pool, journal, {
      rotateMs: 0,
      preconfirmationsJournaled: () => journaled,
    });
    const a0 = await pool.add(await tx(alice, 0));
    // Sealed at once: its block is shown before its batch is on disk, so the journal keeps it.
    nonces.set(alice.address.toLowerCase(), 1n);
    await pool.onIncluded([a0]);
    const written = async (n: number) => {
      const deadline = Date.now() + 2000;
      let got: string[] = [];
      while (Date.now() < deadline && got.length < n) {
        await new Promise((r) => setTimeout(r, APPEND_BATCH_MS));
        got = (await createFileTxJournal(path).load()).map((r) => toHex(r));
      }
      return got;
    };
    // Well within the hold (150 ms): not held.
    await new Promise((r) => setTimeout(r, 3 * APPEND_BATCH_MS));
    expect((await createFileTxJournal(path).load()).map((r) => toHex(r))).toEqual([toHex(a0.raw)]);
    // Held while the builder journals, and then written if it stopped journaling meanwhile.
    journaled = true;
    const a1 = await pool.add(await tx(alice, 1));
    journaled = false;
    nonces.set(alice.address.toLowerCase(), 2n);
    await pool.onIncluded([a1]);
    expect(await written(2)).toEqual([toHex(a0.raw), toHex(a1.raw)]);
    await attached.stop();
  });

  test('a close writes what is still held, without waiting for the hold', async () => {
    const path = join(dir, 'journal.bin');
    const journal = createFileTxJournal(path, undefined, 60_000);
    const raw = await tx(alice, 0);
    journal.append(raw, () => true);
    await journal.close();
    expect((await createFileTxJournal(path).load()).map((r) => toHex(r))).toEqual([toHex(raw)]);
  });

  test('a torn last record is ignored', async () => {
    const path = join(dir, 'journal.bin');
    const journal = createFileTxJournal(path);
    const raw = await tx(alice, 0);
    journal.append(raw);
    await journal.close();
    const bytes = await readFile(path);
    await writeFile(path, Buffer.concat([bytes, Buffer.from([0, 0, 0, 200, 1, 2, 3])]));
    const loaded = await createFileTxJournal(path).load();
    expect(loaded).toHaveLength(1);
    expect(toHex(loaded[0])).toBe(toHex(raw));
  });

  test('a missing journal loads as empty', async () => {
    expect(await createFileTxJournal(join(dir, 'none.bin')).load()).toEqual([]);
  });
});

describe('txpool_* shapes', () => {
  /** Runs the txpool_* method `name` (rpc/txpool.ts) over `pool`. */
  const call = (pool: TxPool, name: string, params: unknown[] = []) => {
    const m = txpoolMethods[name];
    return m.run(new Params(params, m.params), { pool } as unknown as RpcContext) as any;
  };

  test('status, content, contentFrom and inspect as geth', async () => {
    const pool = newPool();
    const a0 = await pool.add(await tx(alice, 0, { value: 7n }));
    const a1 = await pool.add(await tx(alice, 1, { to: null }));
    const b3 = await pool.add(await tx(bob, 3));
    expect(call(pool, 'txpool_status')).toEqual({ pending: '0x2', queued: '0x1' });

    const content = call(pool, 'txpool_content');
    expect(Object.keys(content.pending)).toEqual([alice.address]);
    expect(Object.keys(content.pending[alice.address])).toEqual(['0', '1']);
    expect(content.pending[alice.address]['0'].hash).toBe(a0.hash);
    expect(content.pending[alice.address]['1'].hash).toBe(a1.hash);
    expect(content.pending[alice.address]['0'].blockHash).toBeNull();
    expect(Object.keys(content.queued)).toEqual([bob.address]);
    expect(content.queued[bob.address]['3'].hash).toBe(b3.hash);

    const from = call(pool, 'txpool_contentFrom', [bob.address.toLowerCase()]);
    expect(from.pending).toEqual({});
    expect(Object.keys(from.queued)).toEqual(['3']);
    expect(from.queued['3'].nonce).toBe('0x3');

    const checksummedRecipient = getAddress(RECIPIENT);
    expect(call(pool, 'txpool_inspect')).toEqual({
      pending: {
        [alice.address]: {
          '0': `${checksummedRecipient}: 7 wei + 21000 gas × 100000000000 wei`,
          '1': 'contract creation: 0 wei + 60000 gas × 100000000000 wei',
        },
      },
      queued: { [bob.address]: { '3': `${checksummedRecipient}: 0 wei + 21000 gas × 100000000000 wei` } },
    });
  });
});
