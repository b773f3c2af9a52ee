/**
 * Fills an eth_sendTransaction request from the chain's RPC, in this order:
 *   nonce  <- eth_getTransactionCount(from, 'pending')
 *   gas    <- eth_estimateGas({ from, to, value, data })
 *   fees   <- eth_maxPriorityFeePerGas and baseFeePerGas of the 'pending' block ('latest' as a
 *             fallback): maxFeePerGas = 2 * baseFee + priority. A chain without a base fee, or a
 *             request with gasPrice, gets a legacy transaction (eth_gasPrice).
 */
import { walletErrors } from '../errors.js';

export type Rpc = (method: string, params: unknown[]) => Promise<unknown>;

/** The transaction after filling; bigint inside, as viem signs it. */
export type PreparedTransaction = {
  chainId: number;
  from: `0x${string}`;
  to?: `0x${string}`;
  value: bigint;
  data?: `0x${string}`;
  nonce: number;
  gas: bigint;
  accessList?: { address: `0x${string}`; storageKeys: `0x${string}`[] }[];
} & (
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint }
);

const DEFAULT_PRIORITY_FEE = 1_000_000_000n;

function quantity(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')
      return BigInt(value);
  } catch {}
  throw walletErrors.invalidParams(`Invalid transaction field '${field}'. Received:\n${value}`);
}

function hexData(value: unknown, field: string): `0x${string}` | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(value)) return value as `0x${string}`;
  throw walletErrors.invalidParams(`Invalid transaction field '${field}'. Received:\n${value}`);
}

function address(value: unknown, field: string): `0x${string}` | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return value as `0x${string}`;
  throw walletErrors.invalidParams(`Invalid transaction field '${field}'. Received:\n${value}`);
}

export async function prepareTransaction(
  request: Record<string, unknown>,
  from: `0x${string}`,
  chainId: number,
  rpc: Rpc,
): Promise<PreparedTransaction> {
  const to = address(request.to, 'to');
  const value = quantity(request.value, 'value') ?? 0n;
  const data = hexData(request.data ?? request.input, 'data');
  const accessList = Array.isArray(request.accessList)
    ? (request.accessList as PreparedTransaction['accessList'])
    : undefined;

  const nonce =
    quantity(request.nonce, 'nonce') ??
    BigInt((await rpc('eth_getTransactionCount', [from, 'pending'])) as string);

  let gas = quantity(request.gas ?? request.gasLimit, 'gas');
  if (gas === undefined) {
    const estimate: Record<string, string> = { from, value: `0x${value.toString(16)}` };
    if (to) estimate.to = to;
    if (data) estimate.data = data;
    gas = BigInt((await rpc('eth_estimateGas', [estimate])) as string);
  }

  const base = { chainId, from, to, value, data, nonce: Number(nonce), gas, accessList };
  const gasPrice = quantity(request.gasPrice, 'gasPrice');
  const wantsLegacy = gasPrice !== undefined || request.type === '0x0' || request.type === '0x1';
  if (wantsLegacy) {
    return {
      ...base,
      type: 'legacy',
      gasPrice: gasPrice ?? BigInt((await rpc('eth_gasPrice', [])) as string),
    };
  }

  let maxPriorityFeePerGas = quantity(request.maxPriorityFeePerGas, 'maxPriorityFeePerGas');
  let maxFeePerGas = quantity(request.maxFeePerGas, 'maxFeePerGas');
  if (maxFeePerGas === undefined) {
    if (maxPriorityFeePerGas === undefined) maxPriorityFeePerGas = await readPriorityFee(rpc);
    const baseFee = await readBaseFee(rpc);
    if (baseFee === undefined) {
      return { ...base, type: 'legacy', gasPrice: BigInt((await rpc('eth_gasPrice', [])) as string) };
    }
    maxFeePerGas = baseFee * 2n + maxPriorityFeePerGas;
  }
  if (maxPriorityFeePerGas === undefined) maxPriorityFeePerGas = await readPriorityFee(rpc);
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas;
  return { ...base, type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
}

async function readPriorityFee(rpc: Rpc): Promise<bigint> {
  try {
    return BigInt((await rpc('eth_maxPriorityFeePerGas', [])) as string);
  } catch {
    return DEFAULT_PRIORITY_FEE;
  }
}

async function readBaseFee(rpc: Rpc): Promise<bigint | undefined> {
  for (const tag of ['pending', 'latest']) {
    try {
      const block = (await rpc('eth_getBlockByNumber', [tag, false])) as { baseFeePerGas?: string } | null;
      if (block?.baseFeePerGas) return BigInt(block.baseFeePerGas);
    } catch {
      // try the next tag
    }
  }
  return undefined;
}

/** The hex form of a prepared transaction, for the approval dialog. */
export function transactionToHex(tx: PreparedTransaction): Record<string, unknown> {
  const hex = (v: bigint | number) => `0x${v.toString(16)}`;
  return {
    from: tx.from,
    ...(tx.to ? { to: tx.to } : {}),
    value: hex(tx.value),
    ...(tx.data ? { data: tx.data } : {}),
    nonce: hex(tx.nonce),
    gas: hex(tx.gas),
    chainId: hex(tx.chainId),
    ...(tx.type === 'eip1559'
      ? {
          type: '0x2',
          maxFeePerGas: hex(tx.maxFeePerGas),
          maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas),
        }
      : { type: '0x0', gasPrice: hex(tx.gasPrice) }),
  };
}
