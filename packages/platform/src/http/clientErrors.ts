/**
 * Answers for connections whose request never became a request (Node's `clientError`): too slow
 * (the request timeout, 408), headers too large (431), bytes that are not HTTP (400). Written on
 * the socket in the service's error body, `{ success: false, error, message }`, then the socket is
 * closed. Replaces fastify's default, whose body has another shape.
 */
import type { Socket } from 'node:net';
import { type ErrorCode, errorCodeHeader, errorCodes } from '../errors.js';

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
      `HTTP/1.1 ${status} ${label}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\n${errorCodeHeader}: ${code}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Errors fastify's router raises before any route or error handler (a path parameter over its
 * length, a URL that does not decode): answered in the service's body too.
 */
export function frameworkErrorHandler(
  error: { code?: string },
  _request: unknown,
  reply: { code(status: number): { header(name: string, value: string): { send(body: unknown): unknown } } },
): void {
  const code: ErrorCode = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'URI_TOO_LONG' : 'MALFORMED_REQUEST';
  const { status, error: label } = errorCodes[code];
  const message =
    code === 'URI_TOO_LONG'
      ? 'a path parameter of the URL is too long'
      : 'the URL of the request is not valid';
  reply.code(status).header(errorCodeHeader, code).send({ success: false, error: label, message });
}
