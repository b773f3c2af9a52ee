import path from 'node:path';
import { type Command, Option } from 'commander';
import { toChecksumAddress } from '../checksum.js';
import { type ChainFlags, startChain } from '../compose.js';
import { createLogger, type LogFlags } from '../logger.js';
import { progressBar } from '../progress.js';
import { parsePositiveInteger, parseUrl } from '../flags.js';
import { shutdownOnSignal } from '../shutdown.js';
import { addChainOptions, addDataDirOption, addHostOption, addLogOptions } from './options.js';

export function registerChainCommands(program: Command): void {
  const chain = program.command('chain').description('the chain node: run it, import and export chains');

  const start = chain
    .command('start')
    .description('run the chain node alone (JSON-RPC over HTTP and WebSocket)');
  addHostOption(start);
  addDataDirOption(start);
  addChainOptions(start, '--port');
  addLogOptions(start);
  start.action(async (opts: ChainFlags & LogFlags) => {
    const logger = createLogger(opts);
    const shutdown = shutdownOnSignal(logger);
    const node = await startChain(opts, logger);
    shutdown.add(() => node.close());
    process.stdout.write(`Chain RPC   ${node.url}   ${node.wsUrl}   chain id ${node.chainId}\n`);
    for (const [i, a] of node.accounts.entries())
      process.stdout.write(`(${i}) ${toChecksumAddress(a.address)} ${a.privateKey}\n`);
    start.setOptionValue('__exitCode', await shutdown.done);
  });

  const follow = chain
    .command('follow')
    .description(
      'run a follower of a sequencer: applies its flashblocks and imports its sealed blocks (both re-executed and checked), answers reads, forwards transactions',
    )
    .requiredOption(
      '--sequencer <url>',
      "the sequencer's JSON-RPC URL (http://host:8545)",
      parseUrl(['http:', 'https:']),
    )
    .addOption(
      new Option(
        '--flashblocks-url <url>',
        "the sequencer's flashblock stream, applied to this node's pending block (default: /flashblocks on the --sequencer host)",
      )
        .env('WHARF_FLASHBLOCKS_URL')
        .argParser(parseUrl(['ws:', 'wss:'])),
    )
    .addOption(
      new Option('--no-flashblocks', 'import sealed blocks only: pending stays an empty block on latest'),
    )
    .addOption(
      new Option('--follow-poll <ms>', "milliseconds between asks for the sequencer's head")
        .env('WHARF_FOLLOW_POLL')
        .argParser(parsePositiveInteger)
        .default(100),
    )
    .addOption(
      new Option('--follow-buffer <n>', 'flashblocks kept for blocks this follower has not imported yet')
        .env('WHARF_FOLLOW_BUFFER')
        .argParser(parsePositiveInteger)
        .default(64),
    )
    .addOption(
      new Option('--follow-max-message <bytes>', 'largest flashblock message accepted, compressed or not')
        .env('WHARF_FOLLOW_MAX_MESSAGE')
        .argParser(parsePositiveInteger)
        .default(16 * 1024 * 1024, '16 MiB'),
    );
  addHostOption(follow);
  addDataDirOption(follow);
  // The chain's own parameters (chain id, gas limit, base fee, block times) come from the
  // sequencer; the dev flags (--accounts, --mnemonic, --balance) or --genesis must be its own.
  addChainOptions(follow, '--port');
  addLogOptions(follow);
  follow.action(async (opts: ChainFlags & LogFlags) => {
    const logger = createLogger(opts);
    const shutdown = shutdownOnSignal(logger);
    const node = await startChain(opts, logger);
    shutdown.add(() => node.close());
    process.stdout.write(
      `Follower    ${node.url}   ${node.wsUrl}   chain id ${node.chainId}   sequencer ${opts.sequencer}\n`,
    );
    follow.setOptionValue('__exitCode', await shutdown.done);
  });

  const imp = chain
    .command('import')
    .description('validate and import a geth chain (genesis.json + chain.rlp) into the data dir')
    .requiredOption('--genesis <file>', 'geth genesis.json')
    .requiredOption('--chain <file>', 'RLP-concatenated blocks (geth export format)');
  addDataDirOption(imp);
  imp.action(async (opts: { genesis: string; chain: string; dataDir: string }) => {
    const { importChain } = await import('@wharf/chain');
    const bar = progressBar('importing');
    const result = await importChain({
      dataDir: path.resolve(opts.dataDir),
      genesisPath: path.resolve(opts.genesis),
      chainPath: path.resolve(opts.chain),
      onProgress: (p) => bar.update(p.imported, p.total),
    });
    bar.done();
    process.stdout.write(`${JSON.stringify({ head: Number(result.head) })}\n`);
  });

  const exp = chain
    .command('export')
    .description('write the stored chain (without genesis) as RLP-concatenated blocks')
    .requiredOption('--out <file>', 'output file');
  addDataDirOption(exp);
  exp.action(async (opts: { out: string; dataDir: string }) => {
    const { exportChain } = await import('@wharf/chain');
    const result = await exportChain({
      dataDir: path.resolve(opts.dataDir),
      outPath: path.resolve(opts.out),
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });
}
