import { describe, expect, it } from 'vitest';
import { checkLength, countCodePoints } from '../src/text/codePoints.js';

describe('countCodePoints', () => {
  it('counts an astral emoji as one, where UTF-16 length says two', () => {
    expect('🚀'.length).toBe(2);
    expect(countCodePoints('🚀')).toBe(1);
  });

  it('counts combining marks and ZWJ sequences by code point, as the server does', () => {
    expect(countCodePoints('e\u0301')).toBe(2);
    expect(countCodePoints('👩‍💻')).toBe(3);
  });

  it('counts plain text as its length', () => {
    expect(countCodePoints('')).toBe(0);
    expect(countCodePoints('hello, wharf')).toBe(12);
  });
});

describe('checkLength', () => {
  it('accepts exactly the maximum and refuses one more', () => {
    expect(checkLength('🚀'.repeat(30), 30)).toMatchObject({ count: 30, over: false, remaining: 0 });
    expect(checkLength('a'.repeat(31), 30)).toMatchObject({ over: true, remaining: -1 });
  });

  it('calls whitespace-only text blank (the server treats it as missing)', () => {
    expect(checkLength('  \n', 30).blank).toBe(true);
    expect(checkLength(' a ', 30).blank).toBe(false);
  });
});
