/**
 * Prometheus text exposition for the node's /metrics: a fixed-bucket histogram (optionally one
 * series per label value) and a gauge. Shared by the builder's metrics and the process's.
 */

/** One histogram series: cumulative bucket counts, sum and count. */
class Series {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly buckets: number[]) {
    this.counts = buckets.map(() => 0);
  }

  observe(v: number): void {
    this.sum += v;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]) this.counts[i]++;
  }

  lines(name: string, label: string): string[] {
    const sep = label ? ',' : '';
    const out = this.buckets.map((le, i) => `${name}_bucket{${label}${sep}le="${le}"} ${this.counts[i]}`);
    const braces = label ? `{${label}}` : '';
    out.push(`${name}_bucket{${label}${sep}le="+Inf"} ${this.count}`);
    out.push(`${name}_sum${braces} ${this.sum}`, `${name}_count${braces} ${this.count}`);
    return out;
  }
}

export class Histogram {
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: number[],
    /** The label that tells series apart (`kind` -> `{kind="major"}`); none: one series. */
    private readonly labelName?: string,
  ) {
    if (!labelName) this.series.set('', new Series(buckets));
  }

  observe(v: number, labelValue = ''): void {
    const key = this.labelName ? `${this.labelName}="${labelValue}"` : '';
    let s = this.series.get(key);
    if (!s) {
      s = new Series(this.buckets);
      this.series.set(key, s);
    }
    s.observe(v);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [label, s] of this.series) lines.push(...s.lines(this.name, label));
    return lines.join('\n');
  }
}

export function gauge(name: string, help: string, value: number): string {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`].join('\n');
}
