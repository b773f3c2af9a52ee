import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/api/sseParser.js';

describe('SseParser', () => {
  it('parses an event with id, type and data', () => {
    const p = new SseParser();
    expect(p.push('id: 01A\nevent: notification\ndata: {"a":1}\n\n')).toEqual([
      { type: 'notification', data: '{"a":1}', lastEventId: '01A' },
    ]);
  });

  it('joins multi-line data with newlines and defaults the type to message', () => {
    const p = new SseParser();
    expect(p.push('data: one\ndata: two\n\n')).toEqual([
      { type: 'message', data: 'one\ntwo', lastEventId: '' },
    ]);
  });

  it('handles chunks split anywhere, including inside a CRLF', () => {
    const text = 'id: 7\r\ndata: hello\r\n\r\nid: 8\r\ndata: world\r\n\r\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const events = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(events.map((e) => [e.lastEventId, e.data])).toEqual([
        ['7', 'hello'],
        ['8', 'world'],
      ]);
    }
  });

  it('accepts lone CR line endings', () => {
    const p = new SseParser();
    expect(p.push('data: a\r\rdata: b\r\r').map((e) => e.data)).toEqual(['a', 'b']);
  });

  it('ignores comments (keep-alives) and dispatches nothing without data', () => {
    const p = new SseParser();
    expect(p.push(': ping\n\nevent: x\n\n')).toEqual([]);
  });

  it('keeps the last event id across events and ignores ids containing NUL', () => {
    const p = new SseParser();
    const events = p.push('id: 5\ndata: a\n\ndata: b\n\nid: 6\0x\ndata: c\n\n');
    expect(events.map((e) => e.lastEventId)).toEqual(['5', '5', '5']);
  });

  it('removes only one leading space from a value and treats a bare field as empty', () => {
    const p = new SseParser();
    expect(p.push('data:  two spaces\ndata\n\n')[0].data).toBe(' two spaces\n');
  });

  it('reads retry only when it is all digits', () => {
    const p = new SseParser();
    p.push('retry: 1500\n\nretry: 1x\n\n');
    expect(p.retry).toBe(1500);
  });

  it('does not dispatch an event until its blank line arrives', () => {
    const p = new SseParser();
    expect(p.push('data: partial\n')).toEqual([]);
    expect(p.push('\n')).toHaveLength(1);
  });
});
