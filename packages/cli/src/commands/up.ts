import type { ChainNode } from '@wharf/chain';
import type { Command } from 'commander';
import { startTitle, upBanner } from '../banner.js';
import { type ChainFlags, type ServeFlags, startChain, startPlatform } from '../compose.js';
import { createLogger, type LogFlags } from '../logger.js';
import { shutdownOnSignal } from '../shutdown.js';
import { addChainOptions, addHostOption, addLogOptions, addServeOptions } from './options.js';

export function registerUpCommand(program: Command): void {
  const cmd = program
    .command('up')
    .description('start the chain node and the platform server in one process (the local platform)');
  addHostOption(cmd);
  addServeOptions(cmd);
  addChainOptions(cmd, '--chain-port');
  addLogOptions(cmd);
  cmd.action(async (opts: ServeFlags & Omit<ChainFlags, 'port'> & LogFlags & { chainPort: number }) => {
    const started = performance.now();
    process.stdout.write(startTitle(opts.dataDir));
    const logger = createLogger(opts);
    const shutdown = shutdownOnSignal(logger);
    // The chain builds flashblocks while the platform starts on the same thread: those are late
    // because of the start, and the chain is told when the start is over (see lateFlashblocks.ts).
    let markStarted: () => void = () => {};
    const processStarted = new Promise<void>((resolve) => (markStarted = resolve));
    let chain: ChainNode | undefined;
    let chainError: string | undefined;
    try {
      chain = await startChain({ ...opts, port: opts.chainPort }, logger, processStarted);
      shutdown.add(() => chain!.close());
    } catch (error) {
      chainError = error instanceof Error ? error.message : String(error);
      // A chain that has not been built yet must not keep the platform from starting.
      if (!/has not landed/.test(chainError)) throw error;
      logger.warn({ reason: chainError }, 'chain node unavailable');
    }
    let platform: Awaited<ReturnType<typeof startPlatform>>;
    try {
      platform = await startPlatform(
        { ...opts, chainRpc: chain?.url, chainId: chain?.chainId ?? opts.chainId },
        logger,
      );
    } catch (error) {
      await chain?.close();
      throw error;
    }
    shutdown.add(() => platform.server.close());
    // The step lines go through pino's worker thread: let them reach the terminal before the banner.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.stdout.write(
      upBanner({
        startedMs: Math.round(performance.now() - started),
        platformUrl: platform.server.publicUrl,
        chain,
        chainError,
        dataDir: opts.dataDir,
        adminToken: platform.adminToken,
        balanceWei: opts.balance,
        mnemonic: opts.mnemonic,
      }),
    );
    markStarted();
    cmd.setOptionValue('__exitCode', await shutdown.done);
  });
}
