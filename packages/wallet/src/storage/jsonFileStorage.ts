/**
 * A storage in one JSON file (Node only). Loaded by `createWallet` with a dynamic import when
 * `storage` is a path, so that browser bundles never pull in `node:fs`.
 * Writes are serialized and atomic (temporary file, then rename).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WalletStorage } from './storage.js';

export function jsonFileStorage(path: string): WalletStorage {
  let cache: Record<string, unknown> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<Record<string, unknown>> {
    if (cache) return cache;
    try {
      const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
      cache =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      cache = {};
    }
    return cache;
  }

  function serialized<T>(task: () => Promise<T>): Promise<T> {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  }

  return {
    get: (key) =>
      serialized(async () => {
        const value = (await load())[key];
        return value === undefined ? undefined : structuredClone(value);
      }),
    set: (key, value) =>
      serialized(async () => {
        const data = await load();
        data[key] = structuredClone(value);
        await mkdir(dirname(path), { recursive: true });
        const tmp = `${path}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
        await rename(tmp, path);
      }),
  };
}
