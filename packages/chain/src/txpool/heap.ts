/**
 * A binary heap whose items know their position, so that any item can be removed or re-sifted
 * in O(log n). `before(a, b)` is true when `a` must come out before `b`.
 */
export interface HeapItem {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes `item` if it is in this heap. */
  remove(item: T): void {
    const i = item.heapIndex;
    if (i < 0 || this.items[i] !== item) return;
    const last = this.items.pop()!;
    item.heapIndex = -1;
    if (last === item) return;
    this.items[i] = last;
    last.heapIndex = i;
    if (!this.up(i)) this.down(i);
  }

  /** Restores order after the comparison basis changed (e.g. a new base fee). O(n). */
  rebuild(): void {
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.items[item.heapIndex] === item;
  }

  values(): readonly T[] {
    return this.items;
  }

  private up(i: number): boolean {
    const { items } = this;
    const item = items[i];
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(item, items[parent])) break;
      items[i] = items[parent];
      items[i].heapIndex = i;
      i = parent;
    }
    items[i] = item;
    item.heapIndex = i;
    return i !== start;
  }

  private down(i: number): void {
    const { items } = this;
    const n = items.length;
    const item = items[i];
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(items[right], items[left]) ? right : left;
      if (!this.before(items[child], item)) break;
      items[i] = items[child];
      items[i].heapIndex = i;
      i = child;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}
