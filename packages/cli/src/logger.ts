import pino, { type Logger } from 'pino';

/**
 * Structured logs on stderr (stdout carries the banner and command results, which scripts
 * parse). Pretty-printed on a terminal, one JSON object per line otherwise.
 * Secrets never reach a log line: headers that carry them are redacted.
 */
export function createLogger(level = process.env.WHARF_LOG_LEVEL ?? 'info'): Logger {
  const redact = {
    paths: [
      'req.headers["x-api-key"]',
      'req.headers.authorization',
      'req.headers.cookie',
      'headers["x-api-key"]',
      'headers.authorization',
    ],
    censor: '[redacted]',
  };
  if (process.stderr.isTTY) {
    return pino({
      level,
      redact,
      transport: {
        target: 'pino-pretty',
        options: { destination: 2, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  }
  return pino({ level, redact }, pino.destination(2));
}
