/**
 * Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each
 * collects what happened since its last poll; unpolled filters expire after 5 minutes (geth).
 */
import type { Block } from '@ethereumjs/block';
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '../primitives/hex.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { flashblockItems } from './flashblockItems.js';
import type { PendingShape } from './format.js';
import { blockLogs, type LogFilter, logMatches } from './logs.js';

type Kind = 'logs' | 'blocks' | 'pendingTransactions';

interface Installed {
  kind: Kind;
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

const TIMEOUT_MS = 5 * 60_000;
const MAX_BUFFER = 10_000;

export class FilterManager {
  private readonly filters = new Map<string, Installed>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.timer = setInterval(() => this.expire(), 60_000);
    this.timer.unref();
  }

  install(kind: Kind, criteria?: LogFilter): string {
    const id = `0x${randomBytes(16).toString('hex')}`;
    this.filters.set(id, { kind, criteria, changes: [], lastPoll: this.now() });
    return id;
  }

  get(id: string): Installed | undefined {
    return this.filters.get(id);
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id);
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
    for (const [id, f] of this.filters) if (now - f.lastPoll > TIMEOUT_MS) this.filters.delete(id);
  }
}
