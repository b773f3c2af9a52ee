import pino, { type Logger } from 'pino';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logFormats = ['pretty', 'json'] as const;
export type LogFormat = (typeof logFormats)[number];

export interface LogFlags {
  /** One of `logLevels`; default info. */
  logLevel?: string;
  /** Default: pretty on a terminal, JSON lines otherwise. */
  logFormat?: LogFormat;
}

/**
 * Structured logs on stderr (stdout carries the banner and command results, which scripts
 * parse). `pretty` writes one line per event (time, part, message, then its fields), so that the
 * start-up is one line per step; `json` writes one JSON object per line for log collectors.
 * Secrets never reach a log line: headers that carry them are redacted.
 */
export function createLogger(flags: LogFlags = {}): Logger {
  const level = flags.logLevel ?? 'info';
  const format = flags.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json');
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
  if (format === 'pretty') {
    return pino({
      level,
      redact,
      // pino-pretty runs in pino's worker thread: formatting never takes the builder's thread.
      transport: {
        target: 'pino-pretty',
        options: {
          destination: 2,
          colorize: Boolean(process.stderr.isTTY),
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname,part',
          messageFormat: '{if part}{part}: {end}{msg}',
          singleLine: true,
        },
      },
    });
  }
  return pino({ level, redact }, pino.destination(2));
}
