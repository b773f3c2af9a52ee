import type { Command } from 'commander';
import { type StoreFlags, adminCommand, withAdmin } from './admin.js';

export function registerProjectCommands(program: Command): void {
  const project = program.command('project').description('projects of the notifications service (operator)');

  adminCommand(
    project
      .command('create')
      .description(
        'create a project with an app URL; prints {projectId, apiKey, appUrls} (the key is shown once)',
      )
      .requiredOption('--name <name>', 'project name')
      .requiredOption('--app-url <url>', 'the app URL to register')
      .option('--whitelisted', 'whitelist the project for notifications at once')
      .option('--owner <address>', "the developer's wallet address that owns the project"),
  ).action((opts: StoreFlags & { name: string; appUrl: string; whitelisted?: boolean; owner?: string }) =>
    withAdmin(opts, (admin) =>
      admin.createProject({
        name: opts.name,
        appUrl: opts.appUrl,
        whitelisted: Boolean(opts.whitelisted),
        owner: opts.owner,
      }),
    ),
  );

  adminCommand(
    project.command('whitelist <id>').description('allow the project to send notifications'),
  ).action((id: string, opts: StoreFlags) =>
    withAdmin(opts, async (admin) => {
      await admin.setWhitelisted(id, true);
      return { projectId: id, whitelisted: true };
    }),
  );

  adminCommand(
    project.command('unwhitelist <id>').description('stop the project from sending notifications'),
  ).action((id: string, opts: StoreFlags) =>
    withAdmin(opts, async (admin) => {
      await admin.setWhitelisted(id, false);
      return { projectId: id, whitelisted: false };
    }),
  );

  adminCommand(
    project.command('delete <id>').description('delete the project; its API keys answer 404 at once'),
  ).action((id: string, opts: StoreFlags) =>
    withAdmin(opts, async (admin) => {
      await admin.deleteProject(id);
      return { projectId: id, deleted: true };
    }),
  );

  adminCommand(
    project
      .command('webhook')
      .description(
        "the project's webhook: --url sets it (the first time prints the signing secret, once); " +
          'alone it shows the webhook',
      )
      .requiredOption('--project <id>', 'project id')
      .option('--url <url>', 'http(s) URL the events are POSTed to')
      .option('--rotate-secret', 'a new signing secret, printed once (the old one also signs for 24 h)')
      .option('--remove', 'remove the webhook'),
  ).action((opts: StoreFlags & { project: string; url?: string; rotateSecret?: boolean; remove?: boolean }) =>
    withAdmin(opts, async (admin) => {
      if (opts.remove) return admin.removeWebhook(opts.project);
      let result: object | undefined;
      if (opts.url !== undefined) result = await admin.setWebhook(opts.project, opts.url);
      if (opts.rotateSecret) result = await admin.rotateWebhookSecret(opts.project);
      return result ?? admin.getWebhook(opts.project);
    }),
  );
}
