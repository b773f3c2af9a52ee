import type { ChainNode } from '@wharf/chain';
import type { Command } from 'commander';
import { upBanner } from '../banner.js';
import { type ChainFlags, type ServeFlags, startChain, startPlatform } from '../compose.js';
import { createLogger } from '../logger.js';
import { shutdownOnSignal } from '../shutdown.js';
import { addChainOptions, addHostOption, addServeOptions } from './options.js';

export function registerUpCommand(program: Command): void {
  const cmd = program
    .command('up')
    .description('start the chain node and the platform server in one process (the local platform)');
  addHostOption(cmd);
  addServeOptions(cmd);
  addChainOptions(cmd, '--chain-port');
  cmd.action(async (opts: ServeFlags & Omit<ChainFlags, 'port'> & { chainPort: number }) => {
    const started = performance.now();
    const logger = createLogger();
    const shutdown = shutdownOnSignal(logger);
    let chain: ChainNode | undefined;
    let chainError: string | undefined;
    try {
      chain = await startChain({ ...opts, port: opts.chainPort }, logger);
      shutdown.add(() => chain!.close());
    } catch (error) {
      chainError = error instanceof Error ? error.message : String(error);
      // A chain that has not been built yet must not keep the platform from starting.
      if (!/has not landed/.test(chainError)) throw error;
      logger.warn({ reason: chainError }, 'chain node unavailable');
    }
    let platform: Awaited<ReturnType<typeof startPlatform>>;
    try {
      platform = await startPlatform({ ...opts, chainRpc: chain?.url, chainId: opts.chainId }, logger);
    } catch (error) {
      await chain?.close();
      throw error;
    }
    shutdown.add(() => platform.server.close());
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
    cmd.setOptionValue('__exitCode', await shutdown.done);
  });
}
