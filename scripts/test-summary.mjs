#!/usr/bin/env node
// Prints one closing line for the whole workspace's Vitest runs, from the JSON reports that
// `npm run test:unit` writes (the parallel run, then the *.alone.test.ts files by themselves):
// "tests: N passed, N failed, N skipped". Exits 1 if any failed, or none passed.
import fs from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['node_modules/.cache/vitest-results.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
