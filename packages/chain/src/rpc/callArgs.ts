/** The transaction-call object of eth_call / eth_estimateGas / eth_createAccessList. */
import type { CallArgs, CallBlock } from '../execution/call.js';
import type { Resolved } from '../state/resolve.js';
import { invalidParams } from './errors.js';
import { parseData, parseQuantity } from './params.js';

const KNOWN = new Set([
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'data',
  'input',
  'nonce',
  'accessList',
  'type',
  'chainId',
  'blobVersionedHashes',
  'maxFeePerBlobGas',
  'authorizationList',
  'blobs',
  'commitments',
  'proofs',
]);

export function parseCallArgs(v: unknown, index: number): CallArgs {
  const fail =
    (field: string) =>
    (why: string): never => {
      throw invalidParams(`invalid argument ${index} (transaction): ${field}: ${why}`);
    };
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return fail('transaction')('expected an object');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN.has(k)) fail(k)('unknown field');
  const q = (k: string) => (o[k] === undefined || o[k] === null ? undefined : parseQuantity(o[k], fail(k)));
  const d = (k: string, n?: number) =>
    o[k] === undefined || o[k] === null ? undefined : parseData(o[k], fail(k), n);
  const data = d('input') ?? d('data');
  if (o.input !== undefined && o.data !== undefined && d('input') && d('data')) {
    if (Buffer.compare(d('input')!, d('data')!) !== 0)
      fail('input')(
        'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      );
  }
  const args: CallArgs = {
    from: d('from', 20),
    to: d('to', 20),
    gas: q('gas'),
    gasPrice: q('gasPrice'),
    maxFeePerGas: q('maxFeePerGas'),
    maxPriorityFeePerGas: q('maxPriorityFeePerGas'),
    value: q('value'),
    data,
    nonce: q('nonce'),
    maxFeePerBlobGas: q('maxFeePerBlobGas'),
  };
  if (
    args.gasPrice !== undefined &&
    (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)
  )
    fail('gasPrice')('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  if (o.accessList !== undefined && o.accessList !== null) {
    if (!Array.isArray(o.accessList)) fail('accessList')('expected an array');
    args.accessList = (o.accessList as any[]).map((e) => ({
      address: parseData(e?.address, fail('accessList.address'), 20),
      storageKeys: ((e?.storageKeys ?? []) as unknown[]).map((k) =>
        parseData(k, fail('accessList.storageKeys'), 32),
      ),
    }));
  }
  if (o.blobVersionedHashes !== undefined && o.blobVersionedHashes !== null) {
    if (!Array.isArray(o.blobVersionedHashes)) fail('blobVersionedHashes')('expected an array');
    args.blobVersionedHashes = (o.blobVersionedHashes as unknown[]).map((h) =>
      parseData(h, fail('blobVersionedHashes'), 32),
    );
  }
  if (o.authorizationList !== undefined && o.authorizationList !== null) {
    if (!Array.isArray(o.authorizationList)) fail('authorizationList')('expected an array');
    args.authorizationList = (o.authorizationList as any[]).map((a) => ({
      chainId: parseQuantity(a?.chainId, fail('authorizationList.chainId')),
      address: parseData(a?.address, fail('authorizationList.address'), 20),
      nonce: parseQuantity(a?.nonce, fail('authorizationList.nonce')),
      yParity: parseQuantity(a?.yParity ?? a?.v, fail('authorizationList.yParity')),
      r: parseQuantity(a?.r, fail('authorizationList.r')),
      s: parseQuantity(a?.s, fail('authorizationList.s')),
    }));
  }
  return args;
}

export function callBlockOf(r: Resolved): CallBlock {
  const h = r.header;
  return {
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    baseFeePerGas: h.baseFeePerGas,
    coinbase: h.coinbase.bytes,
    mixHash: h.mixHash,
    difficulty: h.difficulty,
    excessBlobGas: h.excessBlobGas,
  };
}
