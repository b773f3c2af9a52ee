/**
 * A WebSocket whose reader does not keep up: what the node sends piles up in its buffer (a
 * newFlashblocks subscriber that never reads held every block it was sent). Past
 * --rpc-ws-max-buffer bytes waiting, the connection is dropped instead.
 */
import type { WebSocket } from 'ws';

/**
 * Sends `text` on `ws` (a Buffer goes as a binary frame), or drops the connection if more than
 * `maxBuffered` bytes already wait.
 */
export function sendOrDrop(ws: WebSocket, text: string | Buffer, maxBuffered: number): void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount > maxBuffered) {
    // A close frame would wait behind the same buffer: the socket goes at once.
    ws.terminate();
    return;
  }
  ws.send(text);
}
