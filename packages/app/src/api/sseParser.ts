/**
 * A Server-Sent Events parser (the WHATWG "event stream interpretation"), fed text chunks as
 * they arrive from a fetch stream. EventSource cannot send an Authorization header, so the inbox
 * reads the stream with fetch and parses it here.
 */

export interface SseEvent {
  /** `event:` field; "message" when absent. */
  type: string;
  data: string;
  /** The last event id seen so far (it persists across events, as in EventSource). */
  lastEventId: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private type = '';
  private lastEventId = '';
  private sawCr = false;
  /** Reconnection delay asked by the server (`retry:`), in ms. */
  retry: number | undefined;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = chunk;
    // A CRLF split across two chunks: the LF belongs to the CR already handled.
    if (this.sawCr && text.startsWith('\n')) text = text.slice(1);
    this.sawCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = this.buffer.slice(start, i);
      if (c === '\r') {
        if (i + 1 === this.buffer.length) this.sawCr = true;
        else if (this.buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.type = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = '';
    if (data.length === 0) return undefined;
    return { type: type || 'message', data: data.join('\n'), lastEventId: this.lastEventId };
  }
}
