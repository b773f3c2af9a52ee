/**
 * The bench starts wharf's node on dist/bin.js (so that node flags can be passed) with the
 * allocator settings the committed bin/wharf gives a user's node, got by sourcing
 * packages/cli/bin/malloc.sh.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { binMallocSettings } from '../lib/peers.mjs';

const PATH = process.env.PATH;

describe('binMallocSettings', () => {
  it("takes glibc's settings from the script when asked for the system's allocator", () => {
    expect(binMallocSettings({ PATH, WHARF_MALLOC: 'system' })).toEqual({
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
    });
  });

  it('fails, naming the value, when the allocator asked for is unknown', () => {
    expect(() => binMallocSettings({ PATH, WHARF_MALLOC: 'tcmalloc' })).toThrow(
      /WHARF_MALLOC must be jemalloc or system, not 'tcmalloc'/,
    );
  });

  it('lets a value in the environment win, as the script does', () => {
    expect(binMallocSettings({ PATH, WHARF_MALLOC: 'system', MALLOC_ARENA_MAX: '16' })).toEqual({
      MALLOC_ARENA_MAX: '16',
      MALLOC_MMAP_THRESHOLD_: '131072',
    });
    const preloaded = binMallocSettings({
      PATH,
      LD_PRELOAD: '/opt/x/libjemalloc.so.2',
      MALLOC_CONF: 'narenas:1',
    });
    expect(preloaded.LD_PRELOAD).toBe('/opt/x/libjemalloc.so.2');
    expect(preloaded.MALLOC_CONF).toBe('narenas:1');
  });

  it("preloads the system's jemalloc by default, where there is one", () => {
    const s = binMallocSettings({ PATH });
    if (s.LD_PRELOAD === undefined) {
      // No jemalloc here (macOS, or a Linux without it): glibc's settings only.
      expect(s.MALLOC_CONF).toBeUndefined();
      return;
    }
    expect(s.LD_PRELOAD).toMatch(/\/libjemalloc\.so\.2$/);
    expect(fs.existsSync(s.LD_PRELOAD)).toBe(true);
    expect(s.MALLOC_CONF).toBe('background_thread:true,dirty_decay_ms:5000,muzzy_decay_ms:0');
  });
});
