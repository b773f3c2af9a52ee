/**
 * Finding a transaction while the builder moves on: the reader's lookup and the waiters of
 * eth_sendRawTransactionSync / the receipt hold (rpc/inclusion.ts, decisions 0121 and 0122).
 * The builder and storage are stand-ins driven step by step, so that the moments that raced on a
 * running node (a flashblock shown during a storage read) happen every run.
 */
import type { Block } from '@ethereumjs/block';
import { describe, expect, it } from 'vitest';
import type { BuiltListener, FlashblockListener, SealListener } from '../src/builder/events.js';
import type { IncludedTx, PendingSnapshot } from '../src/builder/pendingBlock.js';
import type { PendingBlockView, TxFound } from '../src/reader/chainReader.js';
import { LocalChainReader, type LocalSources } from '../src/reader/localChainReader.js';
import type { RpcContext } from '../src/rpc/context.js';
import { InclusionWatch } from '../src/rpc/inclusion.js';

const hashOf = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0xaa));

/** A pending snapshot holding transactions `numbers` (hashes hashOf(n)); the last `added` are new. */
function snapshot(numbers: number[], added = numbers.length): PendingSnapshot {
  const txs = numbers.map((n) => ({ hash: hashOf(n), sender: hashOf(0), receipt: { n } }));
  return {
    index: 1,
    txs,
    added: txs.slice(txs.length - added),
    block: { transactions: numbers.map((n) => ({ n })) },
  } as unknown as PendingSnapshot;
}

/** A storage read that answers when told to. */
function gate<T>(): { promise: Promise<T>; open: (v: T) => void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    open = r;
  });
  return { promise, open };
}

describe('LocalChainReader.findTransaction', () => {
  it('finds a transaction pre-confirmed while its storage lookup was under way', async () => {
    let pending: PendingBlockView = snapshot([]);
    const read = gate<undefined>();
    const reader = new LocalChainReader({
      blocks: { txLocation: () => read.promise },
      pending: () => pending,
    } as unknown as LocalSources);
    const lookup = reader.findTransaction(hashOf(7));
    // The flashblock that pre-confirms it is shown during the read (the read misses: not sealed).
    pending = snapshot([5, 7]);
    read.open(undefined);
    const found = await lookup;
    expect(found?.index).toBe(1);
    expect(found?.view.pending).toBe(true);
  });
});

/** The builder as InclusionWatch listens to it. */
class Builder {
  pending: PendingSnapshot = snapshot([]);
  private readonly flashblockListeners: FlashblockListener[] = [];
  private readonly sealListeners: SealListener[] = [];
  private readonly builtListeners: BuiltListener[] = [];
  onFlashblock(l: FlashblockListener) {
    this.flashblockListeners.push(l);
    return () => {};
  }
  onFlashblockBuilt(l: BuiltListener) {
    this.builtListeners.push(l);
    return () => {};
  }
  /** Built, to be shown in `msLeft` ms. */
  build(s: PendingSnapshot, msLeft: number) {
    for (const l of this.builtListeners) l(s, msLeft);
  }
  onSealed(l: SealListener) {
    this.sealListeners.push(l);
    return () => {};
  }
  show(s: PendingSnapshot, visible = true) {
    if (visible) this.pending = s;
    for (const l of this.flashblockListeners) l(s);
  }
  seal(numbers: number[]) {
    this.pending = snapshot([]);
    const txs = numbers.map((n) => ({ hash: hashOf(n) }) as unknown as IncludedTx);
    for (const l of this.sealListeners) l({} as Block, txs);
  }
}

/** An RPC context whose reader finds what `sealed` holds (a stand-in for storage). */
function context(builder: Builder) {
  const sealed = new Map<number, TxFound>();
  let lookups = 0;
  const c = {
    producer: builder,
    pool: { get: () => undefined },
    reader: {
      findTransaction: async (h: Uint8Array) => {
        lookups++;
        return sealed.get(h[31]);
      },
    },
  } as unknown as RpcContext;
  return { c, sealed, lookups: () => lookups };
}

describe('InclusionWatch', () => {
  it('answers a waiter from the flashblock that added its transaction, without a storage read', async () => {
    const b = new Builder();
    const { c, lookups } = context(b);
    const watch = new InclusionWatch(b);
    const waiting = watch.waitFor(c, hashOf(3), 5000);
    await Promise.resolve();
    expect(watch.size).toBe(1);
    b.show(snapshot([1, 2]));
    b.show(snapshot([1, 2, 3, 4], 2));
    const found = await waiting;
    expect(found?.index).toBe(2);
    expect(found?.view.pending).toBe(true);
    expect(await found?.view.receipts()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(lookups()).toBe(1); // the first look only
    expect(watch.size).toBe(0);
  });

  it('a flashblock readers do not see yet (blockTime 0) wakes nobody; the seal does', async () => {
    const b = new Builder();
    const { c, sealed } = context(b);
    const watch = new InclusionWatch(b);
    let settled = false;
    const waiting = watch.waitFor(c, hashOf(9), 5000).then((f) => {
      settled = true;
      return f;
    });
    await Promise.resolve();
    b.show(snapshot([9]), false);
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    const inBlock = { index: 0, view: { pending: false } } as unknown as TxFound;
    sealed.set(9, inBlock);
    b.seal([9]);
    expect(await waiting).toBe(inBlock);
  });

  it('a transaction pre-confirmed and sealed during the first look is answered at once', async () => {
    const b = new Builder();
    const { c, sealed } = context(b);
    const watch = new InclusionWatch(b);
    const started = Date.now();
    const waiting = watch.waitFor(c, hashOf(4), 5000);
    // While the first look reads storage: the block's last flashblock, then the seal (the
    // builder's pending block is the next one, empty, by the time the waiter runs).
    b.show(snapshot([4]));
    sealed.set(4, { index: 0, view: { pending: false } } as unknown as TxFound);
    b.seal([4]);
    const found = await waiting;
    expect(found?.index).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a transaction sealed without a flashblock the waiter saw is looked up at the seal', async () => {
    const b = new Builder();
    const { c, sealed } = context(b);
    const watch = new InclusionWatch(b);
    const waiting = watch.waitFor(c, hashOf(6), 5000);
    await new Promise((r) => setTimeout(r, 5));
    const inBlock = { index: 0, view: { pending: false } } as unknown as TxFound;
    sealed.set(6, inBlock);
    b.seal([6]);
    expect(await waiting).toBe(inBlock);
  });

  it('answers undefined at the deadline, after one last look', async () => {
    const b = new Builder();
    const { c, lookups } = context(b);
    const watch = new InclusionWatch(b);
    const started = Date.now();
    expect(await watch.waitFor(c, hashOf(8), 60)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(lookups()).toBe(2);
    expect(watch.size).toBe(0);
  });

  it('wakes only the waiters of the transactions a flashblock added, however many wait', async () => {
    const b = new Builder();
    const { c } = context(b);
    const watch = new InclusionWatch(b);
    const waiters = Array.from({ length: 200 }, (_, i) => watch.waitFor(c, hashOf(i), 5000));
    await Promise.resolve();
    expect(watch.size).toBe(200);
    b.show(snapshot([10, 11]));
    const [a, z] = await Promise.all([waiters[10], waiters[11]]);
    expect([a?.index, z?.index]).toEqual([0, 1]);
    expect(watch.size).toBe(198);
    b.show(snapshot(Array.from({ length: 200 }, (_, i) => i)));
    expect((await Promise.all(waiters)).every((f) => f !== undefined)).toBe(true);
    expect(watch.size).toBe(0);
  });

  it("renders the receipts of a built flashblock's waiters before its showing, and answers with them", async () => {
    const b = new Builder();
    const { c } = context(b);
    const rendered: number[] = [];
    const watch = new InclusionWatch(b, 1000, (view) => (index) => {
      rendered.push(index);
      return { index, receipts: view.senders.length };
    });
    const waiters = [watch.waitFor(c, hashOf(2), 5000), watch.waitFor(c, hashOf(4), 5000)];
    await Promise.resolve();
    const s = snapshot([1, 2, 3, 4], 3);
    b.build(s, 50);
    // Only the waited-for transactions, before anything is shown (nobody is answered yet).
    expect(rendered).toEqual([1, 3]);
    expect(watch.size).toBe(2);
    b.show(s);
    const [two, four] = await Promise.all(waiters);
    expect(two?.receipt).toEqual({ index: 1, receipts: 4 });
    expect(four?.receipt).toEqual({ index: 3, receipts: 4 });
    expect(rendered).toEqual([1, 3]); // not rendered again at the showing
  });

  it('leaves to the waiters what the time before the showing did not allow, and a flashblock not built first', async () => {
    const b = new Builder();
    const { c } = context(b);
    let renders = 0;
    const watch = new InclusionWatch(b, 1000, () => () => ({ n: ++renders }));
    const late = watch.waitFor(c, hashOf(5), 5000);
    await Promise.resolve();
    const s = snapshot([5]);
    b.build(s, 1); // less than the margin left for the other listeners
    b.show(s);
    const found = await late;
    expect(found?.index).toBe(0);
    expect(found?.receipt).toBeUndefined();
    // Built for one snapshot, another shown (a rebuilt flashblock): the rendering is not used.
    const other = watch.waitFor(c, hashOf(6), 5000);
    await Promise.resolve();
    b.build(snapshot([6]), 50);
    b.show(snapshot([6]));
    expect((await other)?.receipt).toBeUndefined();
    expect(renders).toBe(1);
  });

  it('holds a receipt request four intervals while flashblocks come, not at all when none came lately', () => {
    const b = new Builder();
    const watch = new InclusionWatch(b, 1000);
    expect(watch.receiptHoldMs()).toBe(0);
    const t = Date.now();
    (watch as unknown as { shown: number[] }).shown.push(t - 600, t - 400, t - 200, t);
    expect(watch.receiptHoldMs(t + 10)).toBe(820);
    expect(watch.receiptHoldMs(t + 450)).toBe(0);
    expect(new InclusionWatch(b, 300).receiptHoldMs()).toBe(0);
    const capped = new InclusionWatch(b, 300);
    (capped as unknown as { shown: number[] }).shown.push(t - 400, t - 200, t);
    expect(capped.receiptHoldMs(t)).toBe(300);
  });
});
