#!/usr/bin/env node
// The CLI entry: everything lives in dist/ (built by `npm run build`, run by `npm ci`), the CLI
// as a bundle of a few files (dist/bundle/, scripts/bundle-cli.js): Node loads them faster than
// the hundred modules tsc writes.
// `--version` is answered without loading the command-line parser: scripts call it often.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('../dist/bundle/main.mjs');
  try {
    process.exitCode = await main(process.argv);
  } catch (err) {
    process.stderr.write(`hogsync: internal error: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  }
}
