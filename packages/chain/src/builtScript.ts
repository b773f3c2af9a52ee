/**
 * Where a worker thread's script is: the built `.js` of a module of this package. Worker threads
 * run built code only: from the build (dist/) it is the file next to the caller; when the caller
 * runs from its TypeScript source (tests under vitest), the build's copy of the same path.
 * Undefined when the package is not built (then the caller runs without the worker).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `relative`: the script's path from the caller's folder, as built (e.g. `frontWorker.js`). */
export function builtScript(callerUrl: string, relative: string): string | undefined {
  const here = fileURLToPath(callerUrl);
  const dir = path.dirname(here);
  if (!here.endsWith('.ts'))
    return existsSync(path.join(dir, relative)) ? path.join(dir, relative) : undefined;
  // src/<folder>/x.ts -> dist/<folder>/<relative>
  const src = path.resolve(dir).split(path.sep);
  const at = src.lastIndexOf('src');
  const built = path.join(
    src.slice(0, at).join(path.sep) || path.sep,
    'dist',
    ...src.slice(at + 1),
    relative,
  );
  return existsSync(built) ? built : undefined;
}
