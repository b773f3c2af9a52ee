// Types of chart.mjs for the TypeScript tests (bench/test).
export interface Series {
  name: string;
  color: string;
  dash?: string;
  points: { x: number; y: number }[];
}
export interface Panel {
  title: string;
  unit: string;
  series: Series[];
  marks?: { y: number; label: string; color: string }[];
}
export function escapeXml(s: unknown): string;
export function ticks(max: number, count?: number): number[];
export function svgChart(chart: {
  title: string;
  subtitle?: string;
  xLabel: string;
  panels: Panel[];
}): string;
