/**
 * A block's `transactions` array read through from its executed transactions: element i is
 * `items[i].tx`, read only when asked. The pending block is made again at every flashblock (and
 * becomes the sealed block), but its transactions' @ethereumjs/tx objects are read only by RPC
 * views and waiters' answers: building one per pooled transaction (~8 µs, and its allocations)
 * on the way in cost ~10% of the main thread during a burst (docs/perf/2026-11-27-ingest-late.md).
 *
 * A read-only Proxy over the (never changed) array of items: indexing, `length`, iteration and
 * the array methods (which read through the same `get`) see the objects; `Array.isArray` is
 * true. Writes throw (TypeError in strict mode), as the items array must not change.
 */
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { buildTransaction } from '../txpool/decode.js';

/**
 * An element: its object (built on first read, if lazy) and, when known, its hash and its signed
 * encoding without it (a blob transaction's `raw` may be its network form, with the sidecar).
 */
type Item = { readonly tx: TypedTransaction; readonly hash?: Uint8Array; readonly raw?: Uint8Array };

/** The item arrays behind the arrays `transactionsOf` made: `hashesOf` and `encodingsOf` read them. */
const itemsOf = new WeakMap<object, readonly Item[]>();

/** The array index `key` names, or -1. */
function indexOf(key: string | symbol): number {
  if (typeof key !== 'string' || key.length === 0) return -1;
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  const i = Number(key);
  return Number.isInteger(i) && String(i) === key ? i : -1;
}

const readThrough: ProxyHandler<Item[]> = {
  get(items, key, receiver) {
    const i = indexOf(key);
    if (i >= 0) return items[i]?.tx;
    return Reflect.get(items, key, receiver);
  },
  getOwnPropertyDescriptor(items, key) {
    const d = Reflect.getOwnPropertyDescriptor(items, key);
    const i = indexOf(key);
    if (d && i >= 0) d.value = items[i].tx;
    return d;
  },
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
};

/** `items[i].tx` for each i, as a read-only array built on read. `items` must not change after. */
export function transactionsOf(items: readonly Item[]): TypedTransaction[] {
  const txs = new Proxy(items as Item[], readThrough) as unknown as TypedTransaction[];
  itemsOf.set(txs, items);
  return txs;
}

/**
 * The transactions' hashes: from the items where they carry them, so that a block asked for
 * without full transactions (eth_getBlockByNumber(n, false), what block watchers poll) builds no
 * object: 2,000 of them cost ~15 ms of the main thread after each sealed block of a burst.
 */
export function hashesOf(txs: readonly TypedTransaction[]): Uint8Array[] {
  const items = itemsOf.get(txs);
  if (!items) return txs.map((t) => t.hash());
  return items.map((i) => i.hash ?? i.tx.hash());
}

/**
 * A sealed block's transaction: its object built from the signed bytes when first read, then
 * kept. The sealed block stays in the block cache (up to 10,000 transactions): reading through
 * to the pending block's entries there kept each one's pool transaction and receipt alive too
 * (+8 MB of heap after 6,000 transfers, heap snapshots in docs/perf/2026-11-27-ingest-late.md).
 */
export class TransactionFromBytes {
  #tx: TypedTransaction | undefined;

  constructor(
    private readonly signed: Uint8Array,
    readonly hash: Uint8Array,
    private readonly common: Common,
  ) {}

  get tx(): TypedTransaction {
    this.#tx ??= buildTransaction(this.signed, this.common, undefined, this.hash);
    return this.#tx;
  }
}

/**
 * The transactions' signed encodings, as a block body holds them, when every item carries its own
 * (a pending block's entries); undefined otherwise, and for a blob transaction, whose `raw` may be
 * its network form. Lets a block's size be counted without building its objects.
 */
export function encodingsOf(txs: readonly TypedTransaction[]): Uint8Array[] | undefined {
  const items = itemsOf.get(txs);
  if (!items) return undefined;
  const out: Uint8Array[] = [];
  for (const i of items) {
    if (!i.raw || i.raw[0] === 3) return undefined;
    out.push(i.raw);
  }
  return out;
}
