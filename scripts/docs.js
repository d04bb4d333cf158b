// `npm run docs`: regenerates the sample plans in README.md from real output (the CLI of this
// checkout, against a sandbox seeded from examples/sandbox-seed.yaml). Each sample sits between
// `<!-- generated: NAME -->` and `<!-- end: NAME -->`. `npm run docs -- --check` changes nothing
// and exits 1 naming every sample that is stale (test/docs.test.ts runs it).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/hogsync.js', import.meta.url));
const readme = fileURLToPath(new URL('../README.md', import.meta.url));
/** The address the samples show, whatever port the sandbox took. */
const SHOWN_BASE_URL = 'http://127.0.0.1:8171';
/** A plan's fingerprint digests live records (ids, timestamps) that differ on every run. */
const SHOWN_FINGERPRINT = 'sha256:(a digest of the files and the live items; differs per run)';

const SAMPLES = [
  { name: 'plan-text', args: ['plan', 'examples/basic', '--no-color'], wrap: (out) => `\`\`\`text\n${out}\`\`\`` },
  { name: 'plan-markdown', args: ['plan', 'examples/basic', '--format', 'markdown'], wrap: (out) => `<blockquote>\n\n${out.trimEnd()}\n\n</blockquote>` },
];

function startSandbox() {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--seed', 'examples/sandbox-seed.yaml'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    const env = {};
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^(HOGSYNC_BASE_URL|HOGSYNC_API_KEY)=(.*)$/.exec(line);
      if (m) env[m[1]] = m[2];
      if (env.HOGSYNC_BASE_URL && env.HOGSYNC_API_KEY) resolve({ child, env });
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready`)));
  });
}

const check = process.argv.includes('--check');
const { child, env } = await startSandbox();
let text = readFileSync(readme, 'utf8');
const stale = [];
try {
  for (const sample of SAMPLES) {
    const r = spawnSync(process.execPath, [bin, ...sample.args], { cwd: root, env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`hogsync ${sample.args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const output = r.stdout.split(env.HOGSYNC_BASE_URL).join(SHOWN_BASE_URL).replace(/sha256:[0-9a-f]{64}/g, SHOWN_FINGERPRINT);
    const start = `<!-- generated: ${sample.name} -->\n`;
    const end = `\n<!-- end: ${sample.name} -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end, from);
    if (from < 0 || to < 0) throw new Error(`README.md has no ${start.trim()} … ${end.trim()} block`);
    const fresh = sample.wrap(output);
    if (text.slice(from + start.length, to) !== fresh) {
      stale.push(sample.name);
      text = text.slice(0, from + start.length) + fresh + text.slice(to);
    }
  }
} finally {
  child.kill('SIGTERM');
}
if (check) {
  if (stale.length > 0) {
    process.stderr.write(`README.md is stale: ${stale.join(', ')} differ from the CLI's output; run \`npm run docs\`\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('README.md samples are up to date\n');
  }
} else {
  writeFileSync(readme, text);
  process.stdout.write(stale.length > 0 ? `README.md: regenerated ${stale.join(', ')}\n` : 'README.md samples are up to date\n');
}
