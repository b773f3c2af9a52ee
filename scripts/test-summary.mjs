#!/usr/bin/env node
// Prints one closing line for the whole workspace's Vitest run, from the JSON report that
// `npm run test:unit` writes: "tests: N passed, N failed, N skipped".
import fs from 'node:fs';

const file = process.argv[2] ?? 'node_modules/.cache/vitest-results.json';
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests > 0 || report.numPassedTests === 0 ? 1 : 0);
