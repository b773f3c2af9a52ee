import { describe, expect, it } from 'vitest';
import { tuneHeap } from '../src/heapTuning.js';

describe('tuneHeap', () => {
  it('leaves a --heap-growing-percent given on the command line alone', () => {
    expect(tuneHeap(['--heap-growing-percent=30'], '')).toBe(false);
    expect(tuneHeap(['--heap_growing_percent', '30'], '')).toBe(false);
  });

  it('leaves one given in NODE_OPTIONS alone', () => {
    expect(tuneHeap([], '--max-old-space-size=512 --heap-growing-percent=50')).toBe(false);
  });

  it('sets its own otherwise, next to unrelated node flags', () => {
    expect(tuneHeap(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });
});
