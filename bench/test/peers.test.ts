/**
 * The bench starts wharf's node on dist/bin.js (so that node flags can be passed) with the malloc
 * settings the committed bin/wharf gives a user's node, read from the script itself.
 */
import { describe, expect, it } from 'vitest';
import { binMallocSettings } from '../lib/peers.mjs';

describe('binMallocSettings', () => {
  it("takes bin/wharf's defaults", () => {
    expect(binMallocSettings({})).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
  });

  it('lets a value in the environment win, as the script does', () => {
    expect(binMallocSettings({ MALLOC_ARENA_MAX: '16' })).toEqual({
      MALLOC_ARENA_MAX: '16',
      MALLOC_MMAP_THRESHOLD_: '131072',
    });
  });
});
