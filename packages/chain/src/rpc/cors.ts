/**
 * The CORS headers of every RPC answer, open so that browser apps can call the node: as Node's
 * `writeHead` takes them (server.ts) and pre-rendered for the front threads' own HTTP/1.1
 * writer (http1.ts), from one list.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
  'Access-Control-Max-Age': '86400',
};

/** The same headers as raw HTTP/1.1 lines, each ending in CRLF. */
export const CORS_LINES = Object.entries(CORS_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
