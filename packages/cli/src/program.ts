/**
 * The `wharf` command. Every flag may also come from a WHARF_* environment variable
 * (e.g. WHARF_DATA_DIR, WHARF_DATABASE_URL); a flag on the command line wins.
 */
import { Command, CommanderError } from 'commander';
import { registerAppCommands } from './commands/app.js';
import { registerChainCommands } from './commands/chain.js';
import { registerKeyCommands } from './commands/key.js';
import { registerProjectCommands } from './commands/project.js';
import { registerServeCommand } from './commands/serve.js';
import { registerUpCommand } from './commands/up.js';
import { version } from './version.js';

export function buildProgram(): Command {
  const program = new Command('wharf')
    .description(
      'wharf: a self-hostable platform for wallet-centric mini apps.\n' +
        'A chain node with 200 ms pre-confirmations, a notifications service, a wallet and the web app.',
    )
    .version(version, '-v, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerUpCommand(program);
  registerChainCommands(program);
  registerServeCommand(program);
  registerProjectCommands(program);
  registerAppCommands(program);
  registerKeyCommands(program);
  return program;
}

/**
 * Parses argv and runs the command; resolves with the exit code. `beforeAction`: called once the
 * arguments are parsed, as the command's action starts.
 */
export async function run(argv: string[], beforeAction?: () => void): Promise<number> {
  const program = buildProgram();
  let code = 0;
  if (beforeAction) program.hook('preAction', () => beforeAction());
  program.hook('postAction', (_thisCommand, actionCommand) => {
    const result = actionCommand.getOptionValue('__exitCode');
    if (typeof result === 'number') code = result;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; usage errors (bad flags) have already been printed.
      return error.exitCode;
    }
    throw error;
  }
  return code;
}
