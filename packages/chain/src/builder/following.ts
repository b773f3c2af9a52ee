/**
 * A follower's producer work (the producer runs it on its queue): its sequencer's flashblocks
 * applied to the block being built, and its sealed blocks sealed here. Both go through the
 * builder's own PendingBlock and seal (followedBlocks.ts): a flashblock is shown only if
 * re-executing it gives the partial-block hash the sequencer sent; a sealed block is sealed only
 * if re-executing it gives its hash, else execution/importBlock.ts runs it and names what
 * differs. Flashblocks a refusal or the sealed block contradicts are dropped and counted.
 *
 *   flashblock 0 ─> (parent = the pending block? seal it) ─> open on the head with its header
 *   flashblock k ─> add its transactions ─> root = its state_root? ─> publish ─> hash = its block_hash?
 *   sealed block ─> pending block a prefix of it? add the rest : a fresh block ─> hash = its hash? ─> seal
 */
import type { Block } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import { checkHeader, importBlock } from '../execution/importBlock.js';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import type { StateTrie } from '../state/trieAdapter.js';
import type { BuilderEvents } from './events.js';
import {
  addAll,
  agreement,
  baseOf,
  type FlashblockVerdict,
  type FollowedFlashblock,
  type FollowedState,
  type FollowedTx,
  openFollowed,
  sameBase,
} from './followedBlocks.js';
import type { BuilderMetrics } from './metrics.js';
import type { PendingBlock } from './pendingBlock.js';
import type { DroppedFlashblocks } from './producerOptions.js';

export interface FollowingDeps {
  ctx: ChainContext;
  events: BuilderEvents;
  metrics: BuilderMetrics;
  /** The block being built, and replacing it (nothing staged carries over). */
  building: () => PendingBlock;
  setBuilding: (b: PendingBlock) => void;
  /**
   * Seals the block being built (the producer's seal: listeners, durability, next block);
   * `showNext` false: the next block opened is not announced (its flashblock 0 replaces it).
   */
  seal: (showNext: boolean) => Promise<Block>;
  /** Opens an ordinary block on `parent` (after an import by importBlock). */
  openFresh: (parent: Block) => void;
  onDropped?: (drop: DroppedFlashblocks) => void;
}

export class Following {
  /** The followed block being built (opened by a flashblock 0), if any. */
  private followed?: FollowedState;
  /** The account trie at the head's state root, from its seal: a followed block opens on it. */
  warmTrie?: StateTrie;

  constructor(private readonly d: FollowingDeps) {}

  /**
   * Reads the accounts and trie paths `fb` touches into memory, outside the queue (as the stager
   * does for pool transactions): its turn then executes and roots it without waiting on LevelDB.
   */
  warm(fb: FollowedFlashblock): void {
    const b = this.d.building();
    if (fb.number !== b.number || !fb.txs.length) return;
    const addresses: Uint8Array[] = [];
    for (const t of fb.txs) {
      addresses.push(t.sender);
      const to = t.tx.to?.bytes;
      if (to) addresses.push(to);
    }
    b.warmRoot(addresses).catch(() => {}); // only a warm-up: the root reads what is missing
    this.d.ctx.flat.prefetch(addresses).catch(() => {});
  }

  /** One flashblock, in stream order (see the file's header). */
  async applyFlashblock(fb: FollowedFlashblock): Promise<FlashblockVerdict> {
    const { ctx, metrics, events } = this.d;
    if (fb.base) {
      const b = this.d.building();
      const f = this.followed;
      if (!equalBytes(fb.base.parentHash, ctx.blocks.head.hash())) {
        // The new block's parent is the pending block: the sequencer sealed what it pre-confirmed.
        const sealable =
          f &&
          !f.broken &&
          !b.staged.length &&
          b.number + 1n === fb.base.number &&
          equalBytes(b.snapshot.block.hash(), fb.base.parentHash);
        if (!sealable) return { kind: 'unknown-parent' };
        this.followed = undefined;
        metrics.follow.fromFlashblocks++;
        await this.d.seal(false);
      } else if (f && !f.broken && f.payloadId === fb.payloadId && sameBase(f.base, fb.base)) {
        // The block's flashblocks again from index 0 (the stream was opened again mid-block):
        // what is applied stays, and the ones after it are duplicates.
        return { kind: 'duplicate' };
      }
      const head = ctx.blocks.head;
      const next = openFollowed(ctx, head, fb.base, this.warmTrie);
      try {
        checkHeader(next.snapshot.block, head, ctx.spec.baseFee);
      } catch (e) {
        return this.refuse(fb, (e as Error).message);
      }
      this.d.setBuilding(next);
      this.followed = { base: fb.base, payloadId: fb.payloadId, marks: [] };
      if (!fb.txs.length) {
        metrics.follow.applied++;
        events.emit('flashblock', next.snapshot);
        return { kind: 'applied' };
      }
    }
    const f = this.followed;
    const b = this.d.building();
    if (!f || f.payloadId !== fb.payloadId || fb.number !== b.number) {
      // A block past the next one: the follower is behind. One before: sealed already.
      return fb.number > b.number ? { kind: 'unknown-parent' } : { kind: 'duplicate' };
    }
    if (f.broken) return this.refuse(fb, f.broken, false);
    if (fb.index <= b.snapshot.index && !fb.base) return { kind: 'duplicate' };
    if (fb.index > b.snapshot.index + 1) {
      this.refuse(fb, `flashblock ${b.snapshot.index + 1} of block ${b.number} was missed`);
      return { kind: 'gap' };
    }
    const why = await addAll(b, fb.txs);
    if (why) return this.refuse(fb, why);
    const prepared = await b.prepare();
    if (prepared && !equalBytes(prepared.stateRoot.root, fb.stateRoot)) {
      b.discard();
      return this.refuse(
        fb,
        `state root ${bytesToHex(prepared.stateRoot.root)} re-executed, the flashblock says ${bytesToHex(fb.stateRoot)}`,
      );
    }
    const s = await b.publish(fb.index, prepared);
    if (!equalBytes(s.header.hash(), fb.blockHash)) {
      // In the block now though shown to nobody yet: open the block again without it.
      const again = openFollowed(ctx, ctx.blocks.head, f.base, this.warmTrie);
      this.d.setBuilding(again);
      f.marks = [];
      const refused = this.refuse(
        fb,
        `partial block ${bytesToHex(s.header.hash())} re-executed, the flashblock says ${bytesToHex(fb.blockHash)}`,
      );
      events.emit('flashblock', again.snapshot);
      return refused;
    }
    f.marks.push(s.txs.length);
    metrics.follow.applied++;
    events.emit('flashblock', s);
    return { kind: 'applied' };
  }

  /**
   * A sealed block of the sequencer (`txs`: its transactions with senders, else recovered here):
   * re-executed on the pending block when the flashblocks applied so far are its first
   * transactions, else on a fresh block with its header, and sealed if that gives its hash; else
   * imported by execution/importBlock.ts (which throws naming what differs).
   */
  async importSealed(block: Block, txs?: readonly FollowedTx[]): Promise<void> {
    const { ctx, metrics, events } = this.d;
    const head = ctx.blocks.head;
    // Sealed here already from its flashblocks (the next block's first one named it).
    if (equalBytes(head.hash(), block.hash())) return;
    checkHeader(block, head, ctx.spec.baseFee);
    const list =
      txs ??
      block.transactions.map((tx) => ({
        tx,
        raw: tx.serialize(),
        hash: tx.hash(),
        sender: tx.getSenderAddress().bytes,
      }));
    if (await this.sealFollowed(block, list)) return;
    metrics.follow.imported++;
    this.followed = undefined;
    this.warmTrie = undefined;
    await importBlock(ctx, block);
    this.d.openFresh(block);
    events.emit('sealed', block, []);
    events.emit('flashblock', this.d.building().snapshot);
  }

  /** Seals `block` from a pending block that re-executes it. False: it did not give its hash. */
  private async sealFollowed(block: Block, txs: readonly FollowedTx[]): Promise<boolean> {
    const { ctx } = this.d;
    const base = baseOf(block);
    const f = this.followed;
    let b: PendingBlock | undefined = this.d.building();
    let from = 0;
    if (f && b.number === block.header.number) {
      const { same, standing } = sameBase(f.base, base)
        ? agreement(b.snapshot.txs, txs, f.marks)
        : { same: -1, standing: 0 };
      if (same === b.snapshot.txs.length && !b.staged.length) from = same;
      else {
        this.dropped(
          block.header.number,
          f.marks.length - standing,
          same < 0 ? 'the sealed block has another header' : 'the sealed block has other transactions',
        );
        b = undefined;
      }
    } else b = undefined;
    b ??= openFollowed(ctx, ctx.blocks.head, base, this.warmTrie);
    if (await addAll(b, txs.slice(from))) return false;
    await b.publish(b.snapshot.index + 1);
    if (!equalBytes(b.snapshot.block.hash(), block.hash())) return false;
    this.d.setBuilding(b);
    this.followed = undefined;
    this.d.metrics.follow.reexecuted++;
    await this.d.seal(true);
    return true;
  }

  /**
   * Drops `fb`, counted. `breaks`: the first of its block, reported, and the rest of the block's
   * are dropped too (counted, not reported again: one line per block).
   */
  private refuse(fb: FollowedFlashblock, reason: string, breaks = true): FlashblockVerdict {
    if (breaks && this.followed?.payloadId === fb.payloadId) this.followed.broken ??= reason;
    this.dropped(fb.number, 1, `flashblock ${fb.index}: ${reason}`, breaks);
    return { kind: 'contradicted', reason };
  }

  private dropped(block: bigint, count: number, reason: string, report = true): void {
    if (count <= 0) return;
    this.d.metrics.follow.dropped += count;
    if (report) this.d.onDropped?.({ block, count, reason });
  }
}
