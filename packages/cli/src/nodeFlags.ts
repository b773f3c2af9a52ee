/**
 * Whether node itself was given a V8 flag, on its command line or in NODE_OPTIONS. The CLI's
 * tunings (heapTuning.ts, compilerTuning.ts) step aside for a flag the operator chose. V8 takes
 * `-` and `_` alike inside a flag's name; the name must end where the flag does, so that
 * `--interrupt-budget-for-feedback-allocation` is not taken for `--interrupt-budget`.
 */
export function givenToNode(flag: string, execArgv: string[], nodeOptions: string): boolean {
  const pattern = new RegExp(`--${flag.replaceAll('-', '[-_]')}(?![-_\\w])`);
  return [...execArgv, nodeOptions].some((a) => pattern.test(a));
}
