/**
 * A storage in one JSON file (Node only). Loaded by `createWallet` with a dynamic import when
 * `storage` is a path, so that browser bundles never pull in `node:fs`.
 * Every call reads the file (it is small), so wallets sharing the file see each other's
 * writes; writes are serialized per process and atomic (temporary file, then rename).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WalletStorage } from './storage.js';

const queues = new Map<string, Promise<unknown>>();

/** Runs tasks on one file one after another, across every storage object of this process. */
function serialized<T>(path: string, task: () => Promise<T>): Promise<T> {
  const next = (queues.get(path) ?? Promise.resolve()).then(task, task);
  queues.set(
    path,
    next.catch(() => undefined),
  );
  return next;
}

async function load(path: string): Promise<Record<string, unknown>> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

async function save(path: string, data: Record<string, unknown>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
  await rename(tmp, path);
}

export function jsonFileStorage(path: string): WalletStorage {
  return {
    get: (key) => serialized(path, async () => (await load(path))[key]),
    set: (key, value) =>
      serialized(path, async () => {
        const data = await load(path);
        data[key] = value;
        await save(path, data);
      }),
    update: (key, change) =>
      serialized(path, async () => {
        const data = await load(path);
        data[key] = change(data[key]);
        await save(path, data);
      }),
  };
}
