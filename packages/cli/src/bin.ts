#!/usr/bin/env node
import { tuneHeap } from './heapTuning.js';
import { run } from './program.js';

tuneHeap();

run(process.argv).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`wharf: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
