/**
 * A front thread's copy of what the common state reads answer: balance, nonce, code and storage
 * values at `latest` and `pending`, as answers the main thread gave, dropped as the state
 * messages (frontProtocol.ts) say they changed. Keyed by account and slot (never by the
 * request's text). A request it cannot answer exactly as the main thread would goes there as it
 * came: anything unusual (batches, notifications, odd ids, parameters in another spelling, other
 * block tags, other methods) is the main thread's to answer, errors included.
 */
import type { ReplicaConstants, ReplicaStart, StateMessage } from './frontProtocol.js';

export type View = 'latest' | 'pending';
type Field = 'balance' | 'nonce' | 'code';

/** A read the replica can hold: which value of which account (and slot) at which view. */
export interface ReadKey {
  view: View;
  address: string;
  field: Field | 'slot';
  slot?: string;
}

/** What to do with one request body. */
export type Plan =
  /** Answer with this JSON text. */
  | { kind: 'answer'; text: string }
  /** Ask the main thread (the body as it came); keep the answer's result under `key`. */
  | { kind: 'fill'; key: ReadKey }
  /** Ask the main thread (the body as it came). */
  | { kind: 'forward' };

interface Account {
  balance?: string;
  nonce?: string;
  code?: string;
  slots?: Map<string, string>;
}

const FORWARD: Plan = { kind: 'forward' };
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Storage keys as geth takes them (up to 32 bytes, odd length too); others go to the main thread. */
const SLOT = /^0x[0-9a-fA-F]{0,64}$/;

/** The answers of the methods, by name: their parameter count and the field they read. */
const READS: Record<string, { max: number; field: Field | 'slot' }> = {
  eth_getBalance: { max: 2, field: 'balance' },
  eth_getTransactionCount: { max: 2, field: 'nonce' },
  eth_getCode: { max: 2, field: 'code' },
  eth_getStorageAt: { max: 3, field: 'slot' },
};

function validId(v: unknown): v is string | number | null {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

function answer(id: string | number | null, result: string): Plan {
  // The bytes JSON.stringify({ jsonrpc: '2.0', id, result }) gives, in the key order of the main
  // thread's dispatcher (dispatch.ts), without the object.
  return {
    kind: 'answer',
    text: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`,
  };
}

export class ReadReplica {
  /** The last state message applied. */
  applied: number;
  /**
   * Per view, the last state message applied that dropped any of its values: an answer read
   * before it may not show that change. A message that changes one view alone (every
   * flashblock changes `pending` only) leaves what was read at the other one good.
   */
  private readonly changedAt: Record<View, number>;
  private head: string;
  private constants: ReplicaConstants;
  private readonly views: Record<View, Map<string, Account>> = { latest: new Map(), pending: new Map() };
  private readonly sizes: Record<View, { entries: number; codeBytes: number }> = {
    latest: { entries: 0, codeBytes: 0 },
    pending: { entries: 0, codeBytes: 0 },
  };

  constructor(
    start: ReplicaStart,
    private readonly maxEntries: number,
    private readonly maxCodeBytes: number,
  ) {
    this.applied = start.v;
    this.changedAt = { latest: start.v, pending: start.v };
    this.head = start.head;
    this.constants = start.constants;
  }

  /** Applies one state message; false if it is not the next one (it is then ignored). */
  apply(m: StateMessage): boolean {
    if (m.v !== this.applied + 1) return m.v <= this.applied;
    this.applied = m.v;
    this.head = m.head;
    if (m.constants) this.constants = m.constants;
    if (m.clearLatest || m.accounts) this.changedAt.latest = m.v;
    if (m.clearPending) this.changedAt.pending = m.v;
    if (m.clearLatest) this.clear('latest');
    else if (m.accounts) {
      const latest = this.views.latest;
      for (const a of m.accounts) {
        const entry = latest.get(a);
        if (!entry) continue;
        latest.delete(a);
        this.sizes.latest.entries -= 1 + (entry.slots?.size ?? 0);
      }
    }
    if (m.clearPending) this.clear('pending');
    return true;
  }

  private clear(view: View): void {
    this.views[view] = new Map();
    this.sizes[view] = { entries: 0, codeBytes: 0 };
  }

  /** What to do with a request body (parsed JSON; undefined if it did not parse). */
  plan(body: unknown): Plan {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return FORWARD;
    const r = body as Record<string, unknown>;
    // A notification (no id) or anything the dispatcher would refuse: its answer is the main thread's.
    if (!('id' in r) || !validId(r.id) || r.jsonrpc !== '2.0' || typeof r.method !== 'string') return FORWARD;
    const params = r.params === undefined || r.params === null ? [] : r.params;
    if (!Array.isArray(params)) return FORWARD;
    const id = r.id as string | number | null;
    switch (r.method) {
      case 'eth_chainId':
        return params.length === 0 ? answer(id, this.constants.chainId) : FORWARD;
      case 'net_version':
        return params.length === 0 ? answer(id, this.constants.netVersion) : FORWARD;
      case 'web3_clientVersion':
        return params.length === 0 ? answer(id, this.constants.clientVersion) : FORWARD;
      case 'eth_blockNumber':
        return params.length === 0 ? answer(id, this.head) : FORWARD;
    }
    const read = Object.hasOwn(READS, r.method) ? READS[r.method] : undefined;
    if (!read || params.length > read.max) return FORWARD;
    const address = params[0];
    if (typeof address !== 'string' || !ADDRESS.test(address)) return FORWARD;
    let slot: string | undefined;
    if (read.field === 'slot') {
      const s = params[1];
      if (typeof s !== 'string' || !SLOT.test(s)) return FORWARD;
      slot = s.slice(2).toLowerCase().padStart(64, '0');
    }
    const view = this.viewOf(params[read.max - 1]);
    // The pool's next nonce (pending) changes with every accepted transaction: the main thread's.
    if (!view || (view === 'pending' && read.field === 'nonce')) return FORWARD;
    const key: ReadKey = { view, address: address.toLowerCase(), field: read.field, slot };
    const value = this.get(key);
    return value === undefined ? { kind: 'fill', key } : answer(id, value);
  }

  /** The view a block parameter reads, or undefined for any other block (the main thread's). */
  private viewOf(block: unknown): View | undefined {
    if (block === undefined || block === null) return 'latest';
    if (block === 'latest' || block === 'safe' || block === 'finalized') return 'latest';
    if (block === 'pending') return 'pending';
    // The head's number, spelt as the head is (no leading zeros): the same state as latest.
    if (block === this.head) return 'latest';
    return undefined;
  }

  private get(k: ReadKey): string | undefined {
    const a = this.views[k.view].get(k.address);
    if (!a) return undefined;
    return k.field === 'slot' ? a.slots?.get(k.slot as string) : a[k.field];
  }

  /**
   * Keeps a value the main thread answered, read at state version `v`: only if no change to its
   * view after `v` has been applied here (one that has would not drop it again; those not yet
   * applied will).
   */
  fill(k: ReadKey, value: string, v: number): void {
    if (v < this.changedAt[k.view]) return;
    const size = this.sizes[k.view];
    const code = k.field === 'code' ? value.length : 0;
    if (size.entries >= this.maxEntries || size.codeBytes + code > this.maxCodeBytes) {
      this.clear(k.view);
      if (code > this.maxCodeBytes) return;
    }
    const accounts = this.views[k.view];
    let a = accounts.get(k.address);
    if (!a) {
      a = {};
      accounts.set(k.address, a);
      this.sizes[k.view].entries++;
    }
    if (k.field === 'slot') {
      a.slots ??= new Map();
      if (!a.slots.has(k.slot as string)) this.sizes[k.view].entries++;
      a.slots.set(k.slot as string, value);
    } else {
      a[k.field] = value;
      this.sizes[k.view].codeBytes += code;
    }
  }
}
