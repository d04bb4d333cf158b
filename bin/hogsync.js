#!/usr/bin/env node
// The CLI entry: everything lives in dist/ (built by `npm run build`, run by `npm ci`), the CLI
// as a bundle of a few files (dist/bundle/, scripts/bundle-cli.js): Node loads them faster than
// the hundred modules tsc writes.
// This file is CommonJS (bin/package.json): `--version` is answered from package.json without
// starting Node's ES module loader or the command-line parser, as bare Node would; scripts call
// it often. Every other command loads the bundle.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The same value as dist/version.js (test/cli.frame.test.ts holds them equal).
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  const fail = (err) => {
    process.stderr.write(`hogsync: internal error: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  };
  import('../dist/bundle/main.mjs').then(async ({ main }) => {
    try {
      process.exitCode = await main(process.argv);
    } catch (err) {
      fail(err);
    }
  }, fail);
}
