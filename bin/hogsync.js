#!/usr/bin/env node
// The CLI entry: everything lives in dist/ (built by `npm run build`, run by `npm ci`).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`hogsync: internal error: ${err?.message ?? err}\n`); process.exitCode = 1; },
);
