import type { Command } from 'commander';
import { type StoreFlags, adminCommand, withAdmin } from './admin.js';

export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description("a project's API key (operator)");
  adminCommand(
    key
      .command('rotate')
      .description('issue a new API key (shown once) and revoke the old one')
      .requiredOption('--project <id>', 'project id'),
  ).action((opts: StoreFlags & { project: string }) =>
    withAdmin(opts, (admin) => admin.rotateKey(opts.project)),
  );
  adminCommand(
    key
      .command('revoke')
      .description("revoke the project's API keys; requests with them answer 401 at once")
      .requiredOption('--project <id>', 'project id'),
  ).action((opts: StoreFlags & { project: string }) =>
    withAdmin(opts, (admin) => admin.revokeKey(opts.project)),
  );
}
