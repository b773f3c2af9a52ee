import { describe, expect, it } from 'vitest';
import { createUlidGenerator } from '../src/domain/ulid.js';

describe('ULIDs', () => {
  it('are 26 Crockford base32 characters, time-prefixed and strictly increasing within a millisecond', () => {
    let now = Date.parse('2026-11-22T00:00:00Z');
    const next = createUlidGenerator(() => now);
    const ids = Array.from({ length: 5000 }, () => next());
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The time part decodes back to the clock.
    const time = [...ids[0]!.slice(0, 10)].reduce(
      (acc, c) => acc * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c),
      0,
    );
    expect(time).toBe(now);
    now -= 1000; // a clock stepping back still yields increasing ids
    const after = next();
    expect(after > ids[ids.length - 1]!).toBe(true);
  });
});
