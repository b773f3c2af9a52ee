/** txpool_ namespace in geth's shapes (addresses EIP-55, nonces as decimal keys). */
import { toChecksumAddress } from '@ethereumjs/util';
import { hexToBytes, quantity } from '../primitives/hex.js';
import type { PoolTransaction } from '../txpool/types.js';
import { method, type Methods } from './context.js';
import { formatTx } from './format.js';

type Group = Map<`0x${string}`, Map<bigint, PoolTransaction>>;

function byNonce(txs: Map<bigint, PoolTransaction>, f: (t: PoolTransaction) => unknown) {
  const out: Record<string, unknown> = {};
  for (const [n, t] of [...txs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) out[n.toString()] = f(t);
  return out;
}

function group(g: Group, f: (t: PoolTransaction) => unknown) {
  const out: Record<string, unknown> = {};
  for (const [addr, txs] of g) out[toChecksumAddress(addr)] = byNonce(txs, f);
  return out;
}

const full = (t: PoolTransaction) => formatTx(t.tx, hexToBytes(t.sender));

function summary(t: PoolTransaction): string {
  const to = t.tx.to ? toChecksumAddress(t.tx.to.toString()) : 'contract creation';
  return `${to}: ${t.tx.value} wei + ${t.gasLimit} gas × ${t.maxFeePerGas} wei`;
}

export const txpoolMethods: Methods = {
  txpool_status: method([], 0, (_p, c) => {
    const s = c.pool.status();
    return { pending: quantity(s.pending), queued: quantity(s.queued) };
  }),
  txpool_content: method([], 0, (_p, c) => {
    const { pending, queued } = c.pool.content();
    return { pending: group(pending, full), queued: group(queued, full) };
  }),
  txpool_contentFrom: method(['address'], 1, (p, c) => {
    const addr = `0x${Buffer.from(p.address(0)).toString('hex')}` as const;
    const { pending, queued } = c.pool.content();
    return {
      pending: byNonce(pending.get(addr) ?? new Map(), full),
      queued: byNonce(queued.get(addr) ?? new Map(), full),
    };
  }),
  txpool_inspect: method([], 0, (_p, c) => {
    const { pending, queued } = c.pool.content();
    return { pending: group(pending, summary), queued: group(queued, summary) };
  }),
};
