/** Wei <-> ether text, exact (bigint), for balances and the amount field. */
export function formatEther(wei: bigint, maxDecimals = 6): string {
  const negative = wei < 0n;
  const abs = negative ? -wei : wei;
  const whole = abs / 10n ** 18n;
  const frac = (abs % 10n ** 18n).toString().padStart(18, '0').slice(0, maxDecimals).replace(/0+$/, '');
  const wholeText = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${wholeText}${frac ? `.${frac}` : ''}`;
}

/** Parses "1.5" into wei; undefined when it is not a non-negative decimal with at most 18 places. */
export function parseEther(text: string): bigint | undefined {
  const m = /^(\d*)(?:\.(\d{0,18}))?$/.exec(text.trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
  return BigInt(m[1] || '0') * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0') || '0');
}
