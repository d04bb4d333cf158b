// `npm run docs`: regenerates the sample plans and drift reports in README.md from real output
// (the CLI of this checkout, against a sandbox seeded from examples/sandbox-seed.yaml). Each sample sits between
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

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const fenced = (out) => `\`\`\`text\n${out}\`\`\``;
const quote = (out) => `<blockquote>\n\n${out.trimEnd()}\n\n</blockquote>`;

/**
 * The drift samples' story: examples/basic applied, then Alice changes project 12345's time
 * zone and Bob the checkout rollout in the web app (the sandbox's web-edit, dated).
 */
async function driftedByHand(env) {
  const run = spawnSync(process.execPath, [bin, 'apply', 'examples/basic', '--auto-approve'], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`hogsync apply examples/basic exited ${run.status}: ${run.stderr}`);
  const headers = { authorization: `Bearer ${env.HOGSYNC_API_KEY}` };
  const flags = await (await fetch(`${env.HOGSYNC_BASE_URL}/api/projects/12345/feature_flags/`, { headers })).json();
  const checkout = flags.results.find((f) => f.key === 'new-checkout');
  const edits = [
    { user: 'alice@example.com', at: '2026-11-21T14:03:00Z', method: 'PATCH', path: `/api/organizations/${ORG}/projects/12345/`, body: { timezone: 'Europe/Paris' } },
    { user: 'bob@example.com', at: '2026-11-22T09:30:00Z', method: 'PATCH', path: `/api/projects/12345/feature_flags/${checkout.id}/`,
      body: { filters: { groups: [{ properties: [{ key: 'country', type: 'person', operator: 'exact', value: ['DE', 'FR'] }], rollout_percentage: 50 }] } } },
  ];
  for (const edit of edits) {
    const res = await fetch(`${env.HOGSYNC_BASE_URL}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(edit) });
    if (!res.ok) throw new Error(`web-edit by ${edit.user} answered ${res.status}`);
  }
}

/** In order: the plans against the seed, then (after `before`) the drift reports. */
const SAMPLES = [
  { name: 'plan-text', args: ['plan', 'examples/basic', '--no-color'], wrap: fenced },
  { name: 'plan-markdown', args: ['plan', 'examples/basic', '--format', 'markdown'], wrap: quote },
  { name: 'drift-text', before: driftedByHand, args: ['drift', 'examples/basic', '--no-color'], wrap: fenced, exit: 2 },
  { name: 'drift-markdown', args: ['drift', 'examples/basic', '--format', 'markdown'], wrap: quote, exit: 2 },
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
    if (sample.before) await sample.before(env);
    const r = spawnSync(process.execPath, [bin, ...sample.args], { cwd: root, env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
    if (r.status !== (sample.exit ?? 0)) throw new Error(`hogsync ${sample.args.join(' ')} exited ${r.status}: ${r.stderr}`);
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
