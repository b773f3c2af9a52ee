// Types of metrics.mjs for the TypeScript tests (bench/test).
export function fetchMetrics(url: string): Promise<string>;
export function metricValue(text: string, name: string): number;
