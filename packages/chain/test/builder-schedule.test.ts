import { describe, expect, it } from 'vitest';
import { FlashblockSchedule, highOf } from '../src/builder/schedule.js';

// 2 s blocks of 200 ms flashblocks, the defaults; times are fake milliseconds.
const schedule = () => new FlashblockSchedule({ blockTime: 2, flashblockInterval: 200 });

describe('FlashblockSchedule', () => {
  it('puts deadlines on the block grid and starts without a lead', () => {
    const s = schedule();
    s.startBlock(10_000);
    expect(s.deadline(1, 10_000)).toEqual({ showAt: 10_200, firesAt: 10_200 });
    expect(s.deadline(3, 10_050)).toEqual({ showAt: 10_600, firesAt: 10_600 });
    // The last flashblock is due at the block time, however many intervals were asked for.
    expect(s.deadline(12, 10_000).showAt).toBe(12_000);
    expect(s.isLast(9)).toBe(false);
    expect(s.isLast(10)).toBe(true);
  });

  it('never schedules a timer in the past', () => {
    const s = schedule();
    s.startBlock(0);
    expect(s.deadline(1, 450)).toEqual({ showAt: 200, firesAt: 450 });
  });

  it('starts building early by recent build times plus a margin, capped at 30% of an interval', () => {
    const s = schedule();
    s.startBlock(0);
    for (let i = 0; i < 20; i++) s.recordBuild(10);
    // p98 of 10 ms builds plus the 20 ms margin.
    expect(s.lead()).toBe(30);
    expect(s.deadline(1, 0)).toEqual({ showAt: 200, firesAt: 170 });
    s.recordBuild(100);
    // One slow build just now counts at once (the longest of the last few), up to the cap.
    expect(s.lead()).toBe(60);
  });

  it('forgets build times beyond the last 50', () => {
    const s = schedule();
    for (let i = 0; i < 60; i++) s.recordBuild(i < 10 ? 50 : 4);
    expect(s.lead()).toBe(24);
  });

  it('stops staging before the deadline by the recent finishing time, never before 12 ms of staging', () => {
    const s = schedule();
    // No finishing times yet: 4 ms expected and the 6 ms allowance, 10 ms before the deadline
    // (a flashblock taking arrivals until its stop still has its journal write to do).
    expect(s.stagingStopsAt(200, 100)).toBe(190);
    for (let i = 0; i < 10; i++) s.recordBuild(30, 15);
    // 15 ms to finish, and stop 6 ms earlier than that.
    expect(s.stagingStopsAt(200, 100)).toBe(179);
    // A flashblock that started late still stages 12 ms.
    expect(s.stagingStopsAt(200, 180)).toBe(192);
    // A build without transactions records no finishing time.
    s.recordBuild(30);
    expect(s.stagingStopsAt(200, 100)).toBe(179);
  });

  it('expects the 90th percentile of recent finishes: one stall does not hold the stop early for 50 flashblocks', () => {
    const s = schedule();
    for (let i = 0; i < 50; i++) s.recordBuild(30, i === 10 ? 60 : 5, 200);
    // The longest (60 ms) would stop 70 ms early; the 90th percentile is 5 ms.
    expect(s.finishOf(200)).toBe(5);
    expect(s.stagingStopsAt(200, 100, 200)).toBe(189);
    // Finishes that have just risen count at once (the median of the last five).
    for (let i = 0; i < 3; i++) s.recordBuild(60, 40, 200);
    expect(s.stagingStopsAt(200, 100, 200)).toBe(154);
  });

  it('expects a flashblock with many more transactions than recent ones to take longer to finish', () => {
    const s = schedule();
    // Quiet: one transfer per flashblock, 2 ms to finish (counted as 20 transactions' worth).
    for (let i = 0; i < 50; i++) s.recordBuild(10, 2, 1);
    expect(s.stagingStopsAt(200, 100, 1)).toBe(192);
    // A burst of 240: 0.1 ms each, 24 ms, and the stop 6 ms before that.
    expect(s.finishOf(240)).toBeCloseTo(24);
    expect(s.stagingStopsAt(200, 100, 240)).toBe(170);
    // Never before it has staged 12 ms.
    expect(s.stagingStopsAt(200, 180, 240)).toBe(192);
  });

  it('keeps deadlines on the grid after a seal unless more than an interval behind', () => {
    const s = schedule();
    s.startBlock(0);
    s.sealed(2_150);
    expect(s.deadline(1, 2_150).showAt).toBe(2_200);
    s.sealed(4_201);
    expect(s.deadline(1, 4_201).showAt).toBe(4_401);
  });

  it('computes a root ahead only if it recently finished before the timer', () => {
    const s = schedule();
    expect(s.rootAheadFits(100, 105)).toBe(true);
    s.recordRootAhead(8);
    expect(s.rootAheadFits(100, 109)).toBe(true);
    expect(s.rootAheadFits(100, 108)).toBe(false);
  });

  it('highOf takes the 98th percentile or the longest of the last five', () => {
    expect(highOf([])).toBe(0);
    expect(highOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBe(10);
    const many = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(highOf([...many.slice(5), ...many.slice(0, 5)])).toBe(99);
  });
});
