import type { Command } from 'commander';
import { type StoreFlags, adminCommand, withAdmin } from './admin.js';

type AppFlags = StoreFlags & { project: string; appUrl: string };

export function registerAppCommands(program: Command): void {
  const app = program.command('app').description("a project's registered app URLs (operator)");
  for (const verb of ['add', 'remove'] as const) {
    adminCommand(
      app
        .command(verb)
        .description(
          verb === 'add' ? 'register an app URL with a project' : 'remove an app URL from a project',
        )
        .requiredOption('--project <id>', 'project id')
        .requiredOption('--app-url <url>', 'app URL'),
    ).action((opts: AppFlags) =>
      withAdmin(opts, async (admin) => {
        const result =
          verb === 'add'
            ? await admin.addAppUrl(opts.project, opts.appUrl)
            : await admin.removeAppUrl(opts.project, opts.appUrl);
        return { projectId: opts.project, ...result };
      }),
    );
  }
}
