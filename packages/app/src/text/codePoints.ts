/**
 * Lengths as the notifications service counts them: Unicode code points, so that an emoji is one
 * character (a UTF-16 `length` would count it twice and refuse a title the server accepts).
 */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export interface LengthCheck {
  count: number;
  max: number;
  remaining: number;
  over: boolean;
  /** Empty after trimming: the server treats it as missing. */
  blank: boolean;
}

export function checkLength(text: string, max: number): LengthCheck {
  const count = countCodePoints(text);
  return { count, max, remaining: max - count, over: count > max, blank: text.trim() === '' };
}
