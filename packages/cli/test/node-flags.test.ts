import { describe, expect, it } from 'vitest';
import { givenToNode } from '../src/nodeFlags.js';

describe('givenToNode', () => {
  it('finds a flag on the command line, with - or _ and with or without a value', () => {
    expect(givenToNode('interrupt-budget', ['--interrupt-budget=1000'], '')).toBe(true);
    expect(givenToNode('interrupt-budget', ['--interrupt_budget', '1000'], '')).toBe(true);
    expect(givenToNode('heap-growing-percent', ['--heap-growing-percent'], '')).toBe(true);
  });

  it('finds one among others in NODE_OPTIONS', () => {
    expect(
      givenToNode('heap-growing-percent', [], '--max-old-space-size=512 --heap_growing-percent=50'),
    ).toBe(true);
  });

  it('does not take a longer flag that starts with the name for it', () => {
    expect(givenToNode('interrupt-budget', [], '--interrupt-budget-for-feedback-allocation=940')).toBe(false);
    expect(givenToNode('interrupt-budget', ['--interrupt_budget_factor_for_feedback_allocation=8'], '')).toBe(
      false,
    );
    expect(givenToNode('heap-growing-percent', ['--enable-source-maps'], '--max-old-space-size=512')).toBe(
      false,
    );
  });
});
