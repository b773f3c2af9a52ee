/**
 * Answers for connections whose request never became a request (Node's `clientError`): too slow
 * (the request timeout, 408), headers too large (431), bytes that are not HTTP (400). Written on
 * the socket in the service's error body, `{ success: false, error, message }`, then the socket is
 * closed. Replaces fastify's default, whose body has another shape.
 */
import type { Socket } from 'node:net';
import { type ErrorCode, errorCodes } from '../errors.js';

const messages: Partial<Record<ErrorCode, string>> = {
  REQUEST_TIMEOUT: 'the request did not arrive within the request timeout',
  HEADERS_TOO_LARGE: 'the request headers are too large',
  MALFORMED_REQUEST: 'the request is not valid HTTP',
};

function codeOf(error: NodeJS.ErrnoException): ErrorCode {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return 'REQUEST_TIMEOUT';
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code = codeOf(error);
  const { status, error: label } = errorCodes[code];
  const body = JSON.stringify({ success: false, error: label, message: messages[code] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${label}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
