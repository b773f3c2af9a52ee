#!/usr/bin/env node
import { run } from './program.js';

run(process.argv).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`wharf: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
