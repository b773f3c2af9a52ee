// The benches' reader of the node's /metrics text (lib/metrics.mjs).
import { describe, expect, it } from 'vitest';
import { metricValue } from '../lib/metrics.mjs';

const text = [
  '# HELP wharf_state_nodes_made_total Trie nodes made from the leaves.',
  '# TYPE wharf_state_nodes_made_total counter',
  'wharf_state_nodes_made_total 1234',
  'wharf_state_nodes_made_on_loop_total 0',
  'nodejs_gc_duration_seconds_count{kind="major"} 31',
  'nodejs_gc_duration_seconds_sum{kind="major"} 0.2768',
  'nodejs_eventloop_lag_p99_seconds 0.043712',
].join('\n');

describe('metricValue', () => {
  it('reads a sample by its whole name, labels included', () => {
    expect(metricValue(text, 'wharf_state_nodes_made_total')).toBe(1234);
    // A name that is another's prefix is not confused with it.
    expect(metricValue(text, 'wharf_state_nodes_made_on_loop_total')).toBe(0);
    expect(metricValue(text, 'nodejs_gc_duration_seconds_sum{kind="major"}')).toBe(0.2768);
    expect(metricValue(`${text}\n`, 'nodejs_eventloop_lag_p99_seconds')).toBe(0.043712);
  });

  it('is NaN for a sample the node does not report', () => {
    expect(metricValue(text, 'wharf_state_nodes_made')).toBeNaN();
    expect(metricValue(text, 'nodejs_gc_duration_seconds_count{kind="minor"}')).toBeNaN();
    expect(metricValue('', 'wharf_state_nodes_made_total')).toBeNaN();
  });
});
