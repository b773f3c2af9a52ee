/**
 * Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each
 * collects what happened since its last poll; unpolled filters expire (geth: after 5 minutes,
 * --rpc-filter-timeout). Each owner (a WebSocket, or an HTTP client's address) holds at most
 * --rpc-max-filters of them; a WebSocket's go when it closes.
 */
import type { Block } from '@ethereumjs/block';
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '../primitives/hex.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { serverError } from './errors.js';
import { flashblockItems } from './flashblockItems.js';
import type { PendingShape } from './format.js';
import { blockLogs, type LogFilter, logMatches } from './logFilter.js';

type Kind = 'logs' | 'blocks' | 'pendingTransactions';

interface Installed {
  kind: Kind;
  owner: string;
  criteria?: LogFilter;
  changes: unknown[];
  lastPoll: number;
  /**
   * A log filter to `pending`: the log indexes of the block being built it has already
   * collected pre-confirmed, so that the seal does not collect them again (a log is the same
   * log by block number and log index).
   */
  delivered?: { block: bigint; logIndexes: Set<number> };
}

/** A log filter whose range ends at the block being built takes pre-confirmed logs too. */
function toPending(f: LogFilter | undefined): boolean {
  return !!f?.toBlock && 'tag' in f.toBlock && f.toBlock.tag === 'pending';
}

const MAX_BUFFER = 10_000;

export interface FilterLimits {
  /** Filters one owner may hold (--rpc-max-filters). */
  maxFilters: number;
  /** A filter not polled for this long is removed (--rpc-filter-timeout), ms. */
  filterTimeoutMs: number;
}

export class FilterManager {
  private readonly filters = new Map<string, Installed>();
  private readonly owned = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limits: FilterLimits = { maxFilters: 1_000, filterTimeoutMs: 5 * 60_000 },
    private readonly now: () => number = Date.now,
  ) {
    // Looked at a few times per timeout, at most once a minute.
    const every = Math.min(60_000, Math.max(50, Math.floor(limits.filterTimeoutMs / 4)));
    this.timer = setInterval(() => this.expire(), every);
    this.timer.unref();
  }

  install(kind: Kind, owner: string, criteria?: LogFilter): string {
    const n = this.owned.get(owner) ?? 0;
    if (n >= this.limits.maxFilters)
      throw serverError(
        `too many filters: at most ${this.limits.maxFilters} per connection (--rpc-max-filters); uninstall some or let them expire`,
      );
    const id = `0x${randomBytes(16).toString('hex')}`;
    this.filters.set(id, { kind, owner, criteria, changes: [], lastPoll: this.now() });
    this.owned.set(owner, n + 1);
    return id;
  }

  /** Removes every filter of `owner` (a WebSocket that closed). */
  release(owner: string): void {
    for (const [id, f] of this.filters) if (f.owner === owner) this.remove(id, f);
  }

  get(id: string): Installed | undefined {
    return this.filters.get(id);
  }

  uninstall(id: string): boolean {
    const f = this.filters.get(id);
    if (!f) return false;
    this.remove(id, f);
    return true;
  }

  private remove(id: string, f: Installed): void {
    this.filters.delete(id);
    const n = (this.owned.get(f.owner) ?? 1) - 1;
    if (n > 0) this.owned.set(f.owner, n);
    else this.owned.delete(f.owner);
  }

  /** Returns and clears the changes since the last poll. */
  poll(id: string): unknown[] | undefined {
    const f = this.filters.get(id);
    if (!f) return undefined;
    f.lastPoll = this.now();
    const out = f.changes;
    f.changes = [];
    return out;
  }

  onSealed(block: Block, receipts: StoredReceipt[]): void {
    for (const f of this.filters.values()) {
      if (f.kind === 'blocks') this.push(f, bytesToHex(block.hash()));
      else if (f.kind === 'logs') {
        const seen = f.delivered?.block === block.header.number ? f.delivered.logIndexes : undefined;
        f.delivered = undefined;
        for (const l of blockLogs(block, receipts, f.criteria!))
          if (!seen?.has(Number(l.logIndex))) this.push(f, l);
      }
    }
  }

  /** A flashblock was shown: log filters to `pending` collect its matching logs. */
  onFlashblock(s: PendingSnapshot, shape: PendingShape): void {
    if (s.added.length === 0) return;
    for (const f of this.filters.values()) {
      if (f.kind !== 'logs' || !toPending(f.criteria)) continue;
      if (f.delivered?.block !== s.number) f.delivered = { block: s.number, logIndexes: new Set() };
      for (const l of flashblockItems(s, shape, 'logs').logs!)
        if (logMatches(l.log, f.criteria!)) {
          f.delivered.logIndexes.add(Number(l.json.logIndex));
          this.push(f, l.json);
        }
    }
  }

  onPendingTx(hash: string): void {
    for (const f of this.filters.values()) if (f.kind === 'pendingTransactions') this.push(f, hash);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private push(f: Installed, v: unknown): void {
    if (f.changes.length < MAX_BUFFER) f.changes.push(v);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, f] of this.filters)
      if (now - f.lastPoll > this.limits.filterTimeoutMs) this.remove(id, f);
  }
}
