/** Shared by `wharf project|app|key`: open the store named by --data-dir / --database-url, run, print JSON. */
import path from 'node:path';
import type { Admin } from '@wharf/platform';
import type { Command } from 'commander';
import { addStoreOptions } from './options.js';

export interface StoreFlags {
  dataDir: string;
  databaseUrl?: string;
}

export function adminCommand(cmd: Command): Command {
  return addStoreOptions(cmd);
}

export async function withAdmin<T>(flags: StoreFlags, fn: (admin: Admin) => Promise<T>): Promise<void> {
  const { openAdmin } = await import('@wharf/platform');
  const admin = await openAdmin({ dataDir: path.resolve(flags.dataDir), databaseUrl: flags.databaseUrl });
  try {
    const result = await fn(admin);
    process.stdout.write(`${JSON.stringify(result ?? { ok: true }, null, 2)}\n`);
  } finally {
    await admin.close();
  }
}
