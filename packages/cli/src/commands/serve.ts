import type { Command } from 'commander';
import { type ServeFlags, startPlatform } from '../compose.js';
import { parseUrl } from '../flags.js';
import { createLogger, type LogFlags } from '../logger.js';
import { shutdownOnSignal } from '../shutdown.js';
import { addHostOption, addLogOptions, addServeOptions } from './options.js';

export function registerServeCommand(program: Command): void {
  const cmd = program
    .command('serve')
    .description('run the platform server alone: notifications API, client API, web app, dashboard');
  addHostOption(cmd);
  addServeOptions(cmd);
  cmd.option(
    '--chain-rpc <url>',
    'JSON-RPC URL of the chain node (ERC-1271 sign-in, chain view)',
    parseUrl(['http:', 'https:']),
  );
  addLogOptions(cmd);
  cmd.action(async (opts: ServeFlags & LogFlags) => {
    const logger = createLogger(opts);
    const shutdown = shutdownOnSignal(logger);
    const { server, adminToken } = await startPlatform(opts, logger);
    shutdown.add(() => server.close());
    process.stdout.write(`Platform    ${server.publicUrl}\nAdmin token: ${adminToken}\n`);
    cmd.setOptionValue('__exitCode', await shutdown.done);
  });
}
