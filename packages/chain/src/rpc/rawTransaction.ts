/**
 * The raw-transaction parameter of eth_sendRawTransaction and eth_sendRawTransactionSync, and
 * their Method.prepare: in a batch the pool decodes each transaction and starts its sender's
 * recovery ahead of its turn (docs/decisions/0340-a-batch-recovers-its-senders-ahead.md).
 */
import type { RpcContext } from './context.js';
import type { Params } from './params.js';
import { parseData } from './params.js';

const refuse = (): never => {
  throw new Error('not prepared');
};

/**
 * Method.prepare: the parameter's bytes, handed to `pool.prepare`, or undefined when they are not
 * a well-formed non-empty hex string (the method's run then refuses them, naming what is wrong).
 */
export function prepareRawTransaction(params: unknown[], c: RpcContext): Uint8Array | undefined {
  const raw = parseData(params[0], refuse);
  if (raw.length === 0) return undefined;
  c.pool.prepare(raw);
  return raw;
}

/** The transaction's bytes: those `prepareRawTransaction` read, else the parameter, checked. */
export function rawTransactionParam(p: Params, prepared: unknown): Uint8Array {
  if (prepared instanceof Uint8Array) return prepared;
  const raw = p.data(0);
  if (raw.length === 0) p.fail(0, 'empty transaction');
  return raw;
}
