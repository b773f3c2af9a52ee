import type { Logger } from 'pino';

/**
 * Stops cleanly on the first SIGINT or SIGTERM: runs the registered closers in reverse order
 * and resolves `done` with the exit code (0 when everything closed). Handlers are installed at
 * once, so a signal that arrives while the parts are still starting is handled too.
 * A second signal while stopping forces exit 1.
 */
export function shutdownOnSignal(logger: Logger) {
  const closers: Array<() => Promise<void>> = [];
  let stopping = false;
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    let code = 0;
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
        code = 1;
      }
    }
    if (code === 0) logger.info('stopped cleanly');
    resolveDone(code);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    /** Registers a part to close on shutdown (closed in reverse order of registration). */
    add(close: () => Promise<void>) {
      closers.push(close);
    },
    get stopping() {
      return stopping;
    },
    done,
  };
}
