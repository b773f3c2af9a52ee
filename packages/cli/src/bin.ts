#!/usr/bin/env node
import { tuneCompiler } from './compilerTuning.js';
import { holdYoungGeneration, tuneHeap } from './heapTuning.js';

tuneHeap();
tuneCompiler();
// Loading the commands' modules (the EVM among them) would double V8's young generation for good;
// held until a command starts (a chain node's start holds it again: docs/decisions/0460).
const releaseYoungGeneration = holdYoungGeneration();
const { run } = await import('./program.js');

run(process.argv, releaseYoungGeneration).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`wharf: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
