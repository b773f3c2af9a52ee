// The example's own settings file (examples/mini-app/.env): KEY=VALUE lines, written on first run.
import fs from 'node:fs';

/** @returns {Record<string, string>} the file's values, or {} when it does not exist yet. */
export function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  /** @type {Record<string, string>} */
  const values = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) values[match[1]] = match[2];
  }
  return values;
}

/** Writes the values with mode 0600: the file holds an API key and a webhook secret. */
export function writeEnvFile(file, values, comment) {
  const lines = [`# ${comment}`, ...Object.entries(values).map(([k, v]) => `${k}=${v}`), ''];
  fs.writeFileSync(file, lines.join('\n'), { mode: 0o600 });
}
