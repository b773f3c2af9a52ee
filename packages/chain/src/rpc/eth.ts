/**
 * The eth_ namespace: chain, blocks, transactions, receipts, state, calls and submission.
 * One file (over 400 lines) as the namespace is one API: each method is a thin parse-and-format
 * over shared lookups; calls, logs, receipts and formats live in their own files already.
 */
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_NULL } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { type CallBlock, call, commonAt, createAccessList, estimateGas } from '../execution/call.js';
import { type AccountOverride, overrideState } from '../execution/stateOverrides.js';
import { nextBaseFee } from '../execution/baseFee.js';
import { bytesToBigint, bytesToHex, pad32, quantity } from '../primitives/hex.js';
import type { StateReader } from '../state/stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { callBlockOf, parseCallArgs } from './callArgs.js';
import { blockAt, findTx, pendingShape, stateAt, type BlockView } from './chainReads.js';
import { method, type Methods, type RpcContext } from './context.js';
import { callLimits } from './limits.js';
import { invalidParams, serverError } from './errors.js';
import { formatBlock, formatReceipts, formatTx } from './format.js';
import { type Included, inclusionOf } from './inclusion.js';
import { parseFilter } from './logFilter.js';
import { getLogs } from './logs.js';
import { type Params, parseData } from './params.js';
import { blobGasPriceOf, receiptOf } from './receipts.js';
import { prepareRawTransaction, rawTransactionParam } from './rawTransaction.js';
import { parseStateOverrides } from './stateOverrides.js';

async function blockJson(c: RpcContext, view: BlockView | undefined, full: boolean) {
  if (!view) return null;
  const size = view.pending ? undefined : c.reader.sizeOf(view.block);
  return formatBlock(view.block, full, view.senders, {
    pending: view.pending ? pendingShape(c) : undefined,
    size,
  });
}

async function receiptsJson(c: RpcContext, view: BlockView) {
  return formatReceipts(view.block, await view.receipts(), view.senders, {
    pending: view.pending ? pendingShape(c) : undefined,
    blobGasPrice: blobGasPriceOf(view),
  });
}

/** geth accepts storage keys of up to 32 bytes, odd length too, left-padded. */
function storageKey(p: Pick<Params, 'raw' | 'fail'>, i: number): Uint8Array {
  const v = p.raw(i);
  if (typeof v !== 'string') p.fail(i, 'expected a hex string');
  const s = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
  if (!/^[0-9a-fA-F]*$/.test(s)) throw invalidParams(`invalid hex in storage key: "${v}"`);
  if (s.length > 64) throw invalidParams(`storage key too long (want at most 32 bytes): "${v}"`);
  return pad32(Uint8Array.from(Buffer.from(s.length % 2 ? `0${s}` : s, 'hex')));
}

function storageValue(v: Uint8Array): string {
  return bytesToHex(pad32(v));
}

async function nextBlobBaseFee(c: RpcContext): Promise<bigint> {
  const p = c.reader.pending().header;
  return p.common.isActivatedEIP(4844) ? p.getBlobGasPrice() : 0n;
}

function nextBaseFeeOf(c: RpcContext): bigint {
  return c.reader.pending().baseFee;
}

export const ethMethods: Methods = {
  eth_chainId: method([], 0, (_p, c) => quantity(c.chain.spec.chainId)),
  eth_blockNumber: method([], 0, (_p, c) => quantity(c.reader.head().header.number)),
  eth_syncing: method([], 0, () => false),
  eth_accounts: method([], 0, (_p, c) => c.accounts.map((b) => bytesToHex(b))),
  eth_coinbase: method([], 0, () => bytesToHex(new Uint8Array(20))),
  eth_mining: method([], 0, () => false),
  eth_hashrate: method([], 0, () => '0x0'),
  eth_gasPrice: method([], 0, (_p, c) => quantity(nextBaseFeeOf(c) + 1_000_000_000n)),
  eth_maxPriorityFeePerGas: method([], 0, () => quantity(1_000_000_000n)),
  eth_blobBaseFee: method([], 0, async (_p, c) => quantity(await nextBlobBaseFee(c))),
  eth_baseFee: method([], 0, (_p, c) => quantity(nextBaseFeeOf(c))),
  eth_capabilities: method([], 0, (_p, c) => {
    const head = c.reader.head();
    // An archive node deletes nothing: no deleteStrategy (the schema knows only 'window').
    const all = { disabled: false, oldestBlock: '0x0' };
    return {
      head: { number: quantity(head.header.number), hash: bytesToHex(head.hash()) },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    };
  }),

  eth_getBlockByNumber: method(['block', 'fullTransactions'], 2, async (p, c) =>
    blockJson(c, await blockAt(c, p.blockNumber(0)), p.bool(1)),
  ),
  eth_getBlockByHash: method(['blockHash', 'fullTransactions'], 2, async (p, c) =>
    blockJson(c, await blockAt(c, { hash: p.hash(0) }), p.bool(1)),
  ),
  eth_getBlockTransactionCountByNumber: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockNumber(0));
    return v ? quantity(v.block.transactions.length) : null;
  }),
  eth_getBlockTransactionCountByHash: method(['blockHash'], 1, async (p, c) => {
    const v = await blockAt(c, { hash: p.hash(0) });
    return v ? quantity(v.block.transactions.length) : null;
  }),
  eth_getUncleCountByBlockNumber: method(['block'], 1, async (p, c) =>
    (await blockAt(c, p.blockNumber(0))) ? '0x0' : null,
  ),
  eth_getUncleCountByBlockHash: method(['blockHash'], 1, async (p, c) =>
    (await blockAt(c, { hash: p.hash(0) })) ? '0x0' : null,
  ),
  eth_getUncleByBlockNumberAndIndex: method(['block', 'index'], 2, (p) => {
    p.blockNumber(0);
    p.quantity(1);
    return null;
  }),
  eth_getUncleByBlockHashAndIndex: method(['blockHash', 'index'], 2, (p) => {
    p.hash(0);
    p.quantity(1);
    return null;
  }),

  eth_getTransactionByHash: method(['transactionHash'], 1, async (p, c) => {
    const hash = p.hash(0);
    const f = await findTx(c, hash);
    if (f) return txAt(f.view, f.index);
    const pooled = c.pool.get(bytesToHex(hash));
    return pooled ? formatTx(pooled.tx, Buffer.from(pooled.sender.slice(2), 'hex')) : null;
  }),
  eth_getTransactionByBlockNumberAndIndex: method(['block', 'index'], 2, async (p, c) => {
    const v = await blockAt(c, p.blockNumber(0));
    const i = Number(p.quantity(1));
    return v && i < v.block.transactions.length ? txAt(v, i) : null;
  }),
  eth_getTransactionByBlockHashAndIndex: method(['blockHash', 'index'], 2, async (p, c) => {
    const v = await blockAt(c, { hash: p.hash(0) });
    const i = Number(p.quantity(1));
    return v && i < v.block.transactions.length ? txAt(v, i) : null;
  }),
  eth_getRawTransactionByHash: method(['transactionHash'], 1, async (p, c) => {
    const f = await findTx(c, p.hash(0));
    if (f) return bytesToHex(f.tx.serialize());
    const pooled = c.pool.get(bytesToHex(p.hash(0)));
    return pooled ? bytesToHex(pooled.raw) : null;
  }),
  eth_getTransactionReceipt: method(['transactionHash'], 1, async (p, c) => {
    const hash = p.hash(0);
    // Asked before the lookup: the flashblock that pre-confirms it takes it out of the pool, and
    // may be shown while the lookup reads storage.
    const pooled = c.pool.get(bytesToHex(hash)) !== undefined;
    let f: Included | undefined = await findTx(c, hash);
    // A transaction the pool holds is usually pre-confirmed within a flashblock: the answer
    // waits for it (four intervals at most), so a client that asks right after sending gets the
    // receipt, not null and a wait for the next block (decision 0121). Without a hold, one more
    // look: it may have been pre-confirmed and sealed during the first.
    if (!f && pooled) {
      const watch = inclusionOf(c);
      f = await watch.waitFor(c, hash, watch.receiptHoldMs());
    }
    return f ? (f.receipt ?? receiptOf(c, f)) : null;
  }),
  eth_getBlockReceipts: method(['block'], 1, async (p, c) => {
    const v = await blockAt(c, p.blockOrHash(0));
    return v ? receiptsJson(c, v) : null;
  }),

  eth_getBalance: method(['address', 'block'], 1, async (p, c) => {
    const addr = p.address(0);
    const r = await stateAt(c, p.blockOrHash(1));
    return quantity((await r.state.readAccount(addr))?.balance ?? 0n);
  }),
  eth_getTransactionCount: method(['address', 'block'], 1, async (p, c) => {
    const addr = p.address(0);
    const tag = p.blockOrHash(1);
    if ('tag' in tag && tag.tag === 'pending') return quantity(await c.pool.pendingNonce(bytesToHex(addr)));
    const r = await stateAt(c, tag);
    return quantity((await r.state.readAccount(addr))?.nonce ?? 0n);
  }),
  eth_getCode: method(['address', 'block'], 1, async (p, c) => {
    const addr = p.address(0);
    const r = await stateAt(c, p.blockOrHash(1));
    const a = await r.state.readAccount(addr);
    return bytesToHex(a ? await r.state.readCode(a.codeHash) : new Uint8Array(0));
  }),
  eth_getStorageAt: method(['address', 'position', 'block'], 2, async (p, c) => {
    const addr = p.address(0);
    const key = storageKey(p, 1);
    const r = await stateAt(c, p.blockOrHash(2));
    return storageValue(await r.state.readStorage(addr, key));
  }),
  eth_getStorageValues: method(['requests', 'block'], 1, async (p, c) => {
    const req = p.object(0);
    const entries = Object.entries(req);
    if (entries.length === 0) throw invalidParams('empty request');
    const parsed = entries.map(([addr, slots], i) => {
      const a = parseData(addr, (why) => p.fail(0, `address ${i}: ${why}`), 20);
      if (!Array.isArray(slots)) p.fail(0, `slots of ${addr}: expected an array`);
      const list = slots as unknown[];
      return { addr, a, keys: list.map((_, j) => storageKey(new ParamsAt(list), j)) };
    });
    const r = await stateAt(c, p.blockOrHash(1));
    const out: Record<string, string[]> = {};
    for (const e of parsed) {
      const values: string[] = [];
      for (const k of e.keys) values.push(storageValue(await r.state.readStorage(e.a, k)));
      out[e.addr.toLowerCase()] = values;
    }
    return out;
  }),
  eth_getProof: method(['address', 'storageKeys', 'block'], 2, async (p, c) => {
    const addr = p.address(0);
    const rawKeys = p.raw(1);
    if (!Array.isArray(rawKeys)) p.fail(1, 'expected an array of storage keys');
    const list = rawKeys as unknown[];
    const keys = list.map((_, i) => storageKey(new ParamsAt(list), i));
    const r = await stateAt(c, p.blockOrHash(2));
    if (r.pending) throw serverError('proofs are not available for the pending block');
    const reader = c.reader.trieAt(r.header.stateRoot);
    const fork = c.chain.fork;
    // On a fork, an account this node has not written since the fork block (or any account
    // below it) is the remote's: its proof is the remote's, against the remote block's root
    // (docs/decisions/0144-fork-reads.md).
    // An account deleted since the fork is this node's (no account), not the remote's.
    if (fork && (r.header.number < fork.number || (await reader.localAccount(addr)) === undefined)) {
      const at = r.header.number < fork.number ? r.header.number : fork.number;
      return fork.source.call('eth_getProof', [bytesToHex(addr), list, quantity(at)]);
    }
    const account = await reader.readAccount(addr);
    const accountProof = await reader.trie().createProof(keccak256(addr));
    const storageTrie = await reader.storageTrie(addr);
    const storageProof = [];
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const raw = list[i] as string;
      const inTrie = storageTrie ? await storageTrie.get(keccak256(k)) : undefined;
      // A fork: a slot not written since the fork has the remote's value (and a proof of absence).
      const value = inTrie
        ? (RLP.decode(inTrie) as Uint8Array)
        : fork
          ? await reader.readStorage(addr, k)
          : undefined;
      storageProof.push({
        key: raw.length === 66 ? raw.toLowerCase() : quantity(bytesToBigint(k)),
        value: quantity(value?.length ? bytesToBigint(value) : 0n),
        proof: storageTrie ? (await storageTrie.createProof(keccak256(k))).map((b) => bytesToHex(b)) : [],
      });
    }
    return {
      address: bytesToHex(addr),
      accountProof: accountProof.map((b) => bytesToHex(b)),
      balance: quantity(account?.balance ?? 0n),
      codeHash: bytesToHex(account?.codeHash ?? KECCAK256_NULL),
      nonce: quantity(account?.nonce ?? 0n),
      storageHash: bytesToHex(account?.storageRoot ?? EMPTY_TRIE_ROOT),
      storageProof,
    };
  }),

  eth_call: method(['transaction', 'block', 'stateOverrides', 'blockOverrides'], 1, async (p, c) => {
    const args = parseCallArgs(p.raw(0), 0);
    const overrides = parseStateOverrides(p.raw(2), 'invalid argument 2 (stateOverrides)');
    if (p.has(3)) p.fail(3, 'block overrides are not supported (eth_simulateV1 takes them)');
    const r = await stateAt(c, p.blockOrHash(1));
    const at = callBlockOf(r);
    const { state, moved } = await withOverrides(c, r.state, at, overrides);
    return bytesToHex(await call(c.chain, state, at, args, callLimits(c.limits, c.scheduler), moved));
  }),
  eth_estimateGas: method(['transaction', 'block', 'stateOverrides'], 1, async (p, c) => {
    const args = parseCallArgs(p.raw(0), 0);
    const overrides = parseStateOverrides(p.raw(2), 'invalid argument 2 (stateOverrides)');
    const r = await stateAt(c, p.has(1) ? p.blockOrHash(1) : { tag: 'latest' });
    const at = callBlockOf(r);
    const { state, moved } = await withOverrides(c, r.state, at, overrides);
    return quantity(await estimateGas(c.chain, state, at, args, callLimits(c.limits, c.scheduler), moved));
  }),
  eth_createAccessList: method(['transaction', 'block'], 1, async (p, c) => {
    const args = parseCallArgs(p.raw(0), 0);
    const r = await stateAt(c, p.blockOrHash(1));
    const out = await createAccessList(
      c.chain,
      r.state,
      callBlockOf(r),
      args,
      callLimits(c.limits, c.scheduler),
    );
    return {
      accessList: out.accessList,
      ...(out.error ? { error: out.error } : {}),
      gasUsed: quantity(out.gasUsed),
    };
  }),

  eth_getLogs: method(['filter'], 1, async (p, c) => getLogs(c, parseFilter(p.raw(0), 0, c.limits))),

  eth_sendRawTransaction: method(
    ['data'],
    1,
    async (p, c, _conn, _client, prepared) => (await c.pool.add(rawTransactionParam(p, prepared))).hash,
    prepareRawTransaction,
  ),

  eth_feeHistory: method(['blockCount', 'newestBlock', 'rewardPercentiles'], 2, async (p, c) => {
    const countRaw = p.raw(0);
    const count =
      typeof countRaw === 'number' && Number.isInteger(countRaw) && countRaw >= 0
        ? BigInt(countRaw)
        : p.quantity(0);
    const newestTag = p.blockNumber(1);
    const percentiles = (p.has(2) ? p.raw(2) : []) as number[];
    if (!Array.isArray(percentiles) || percentiles.some((x) => typeof x !== 'number' || x < 0 || x > 100))
      p.fail(2, 'reward percentiles must be numbers between 0 and 100');
    for (let i = 1; i < percentiles.length; i++)
      if (percentiles[i] <= percentiles[i - 1]) p.fail(2, 'reward percentiles must be ascending');
    return feeHistory(c, count, newestTag, percentiles as number[]);
  }),
};

class ParamsAt {
  constructor(private readonly list: unknown[]) {}
  raw(i: number) {
    return this.list[i];
  }
  fail(i: number, why: string): never {
    throw invalidParams(`invalid argument 1 (storageKeys[${i}]): ${why}`);
  }
}

function txAt(view: BlockView, i: number) {
  const h = view.block.header;
  return formatTx(view.block.transactions[i], view.senders[i], {
    blockHash: view.pending ? null : view.block.hash(),
    blockNumber: h.number,
    blockTimestamp: h.timestamp,
    index: i,
    baseFee: h.baseFeePerGas,
  });
}

/** The state a call runs on: `base`, or `base` with the request's state overrides over it. */
async function withOverrides(
  c: RpcContext,
  base: StateReader,
  at: CallBlock,
  overrides: Map<string, AccountOverride> | undefined,
): Promise<{ state: StateReader; moved?: Map<string, Uint8Array> }> {
  if (!overrides) return { state: base };
  return overrideState(base, overrides, commonAt(c.chain, at));
}

async function feeHistory(
  c: RpcContext,
  count: bigint,
  newestTag: Parameters<typeof blockAt>[1],
  percentiles: number[],
) {
  if (count > 1024n) count = 1024n;
  const head = c.reader.head().header.number;
  let newest: bigint;
  if ('number' in newestTag) newest = newestTag.number;
  else if ('tag' in newestTag && newestTag.tag === 'earliest') newest = 0n;
  else newest = head;
  if (newest > head) throw invalidParams(`request beyond head block: requested ${newest}, head ${head}`);
  if (count === 0n) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] };
  const oldest = newest + 1n >= count ? newest + 1n - count : 0n;
  const baseFees: string[] = [];
  const blobFees: string[] = [];
  const ratios: number[] = [];
  const blobRatios: number[] = [];
  const rewards: string[][] = [];
  let last: Awaited<ReturnType<typeof blockAt>>;
  for (let n = oldest; n <= newest; n++) {
    const v = await blockAt(c, { number: n });
    if (!v) break;
    last = v;
    const h = v.block.header;
    baseFees.push(quantity(h.baseFeePerGas ?? 0n));
    blobFees.push(quantity(h.common.isActivatedEIP(4844) ? h.getBlobGasPrice() : 0n));
    ratios.push(Number(h.gasUsed) / Number(h.gasLimit));
    const maxBlob = h.common.isActivatedEIP(4844) ? h.common.param('maxBlobGasPerBlock') : 0n;
    blobRatios.push(maxBlob ? Number(h.blobGasUsed ?? 0n) / Number(maxBlob) : 0);
    if (percentiles.length) rewards.push(await blockRewards(v, percentiles));
  }
  // The base fee after the newest block.
  const lh = last!.block.header;
  let next = 0n;
  if (newest === head) next = c.reader.pending().baseFee;
  else {
    const child = await blockAt(c, { number: newest + 1n });
    next = child?.block.header.baseFeePerGas ?? 0n;
  }
  if (lh.baseFeePerGas === undefined && next === 0n) next = 0n;
  baseFees.push(quantity(next));
  let nextBlob = 0n;
  if (newest === head) nextBlob = await nextBlobBaseFee(c);
  else {
    const child = await blockAt(c, { number: newest + 1n });
    const ch = child?.block.header;
    nextBlob = ch?.common.isActivatedEIP(4844) ? ch.getBlobGasPrice() : 0n;
  }
  blobFees.push(quantity(nextBlob));
  void nextBaseFee;
  return {
    oldestBlock: quantity(oldest),
    ...(percentiles.length ? { reward: rewards } : {}),
    baseFeePerGas: baseFees,
    gasUsedRatio: ratios,
    baseFeePerBlobGas: blobFees,
    blobGasUsedRatio: blobRatios,
  };
}

async function blockRewards(v: BlockView, percentiles: number[]): Promise<string[]> {
  const h = v.block.header;
  const txs = v.block.transactions;
  if (txs.length === 0) return percentiles.map(() => '0x0');
  const receipts = await v.receipts();
  const base = h.baseFeePerGas ?? 0n;
  let prev = 0n;
  const items = txs.map((tx, i) => {
    const used = receipts[i].cumulativeGasUsed - prev;
    prev = receipts[i].cumulativeGasUsed;
    const t = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
    let reward: bigint;
    if (t.maxFeePerGas !== undefined) {
      const cap = t.maxFeePerGas - base;
      reward = t.maxPriorityFeePerGas! < cap ? t.maxPriorityFeePerGas! : cap;
    } else reward = t.gasPrice! - base;
    return { reward, used };
  });
  items.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  let idx = 0;
  let sum = items[0].used;
  return percentiles.map((pct) => {
    const threshold = BigInt(Math.floor((Number(h.gasUsed) * pct) / 100));
    while (sum < threshold && idx < items.length - 1) {
      idx++;
      sum += items[idx].used;
    }
    return quantity(items[idx].reward);
  });
}
