// `npm run demo`: starts a sandbox from the example seed, then runs
// plan → apply → plan (no changes) → edits made in the web app by two people (shown) → drift,
// attributed to them, stops the sandbox and says how to go on. Headings are bold only on a
// terminal without NO_COLOR; the steps get --no-color then too, so a pipe or a log gets plain text.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/hogsync.js', import.meta.url));
const config = 'examples/basic';
const org = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const color = process.stdout.isTTY === true && !process.env.NO_COLOR && !process.argv.includes('--no-color');
const bold = (text) => (color ? `\u001b[1m${text}\u001b[0m` : text);
const colorArgs = color ? [] : ['--no-color'];

function startSandbox() {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--seed', 'examples/sandbox-seed.yaml'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const env = {};
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const m = /^(HOGSYNC_BASE_URL|HOGSYNC_API_KEY)=(.*)$/.exec(line);
      if (m) env[m[1]] = m[2];
      if (env.HOGSYNC_BASE_URL && env.HOGSYNC_API_KEY) resolve({ child, env });
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready`)));
  });
}

function step(title, args, env, expected) {
  process.stdout.write(`\n${bold(`── ${title}`)}\n$ hogsync ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [bin, ...args, ...colorArgs], { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' });
  if (r.status !== expected) throw new Error(`hogsync ${args[0]} exited ${r.status}, expected ${expected}`);
}

const { child, env } = await startSandbox();
let failed = false;
try {
  process.stdout.write(`Sandbox running at ${env.HOGSYNC_BASE_URL} (seeded from examples/sandbox-seed.yaml)\n`);
  step('1. plan: what would change', ['plan', config], env, 0);
  step('2. apply: make it so', ['apply', config, '--auto-approve'], env, 0);
  step('3. plan again: nothing left to do', ['plan', config, '--detailed-exitcode'], env, 0);
  process.stdout.write(`\n${bold("── 4. outside git, Alice changes project 12345's time zone and Bob the checkout rollout, in the web app")}\n`);
  const flags = await (await fetch(`${env.HOGSYNC_BASE_URL}/api/projects/12345/feature_flags/`, { headers: { authorization: `Bearer ${env.HOGSYNC_API_KEY}` } })).json();
  const checkout = flags.results.find((f) => f.key === 'new-checkout');
  // The sandbox's web-edit endpoint makes an edit as one of its users (see README, "The sandbox").
  const webEdit = async (user, path, body) => {
    const res = await fetch(`${env.HOGSYNC_BASE_URL}/_sandbox/web-edit/`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, method: 'PATCH', path, body }),
    });
    if (!res.ok) throw new Error(`the edit by ${user} failed: ${res.status}`);
  };
  const edits = [
    ['alice@example.com', `/api/organizations/${org}/projects/12345/`, { timezone: 'America/New_York' }, 'examples/basic says Europe/Berlin'],
    ['bob@example.com', `/api/projects/12345/feature_flags/${checkout.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }, 'examples/basic says 20'],
  ];
  for (const [user, path, body, note] of edits) {
    process.stdout.write(`${user}: PATCH ${path} ${JSON.stringify(body)}   # ${note}\n`);
    await webEdit(user, path, body);
  }
  step('5. drift: the scheduled job notices (exit 2), and says who changed what, and when', ['drift', config], env, 2);
  process.stdout.write(`
Demo complete; its sandbox has stopped. To try your own changes, start one and keep it:
  node bin/hogsync.js sandbox --port 8010 --seed examples/sandbox-seed.yaml > sandbox.env &
  sleep 1; export $(cat sandbox.env)
  node bin/hogsync.js plan examples/basic --format markdown
`);
} catch (err) {
  failed = true;
  process.stderr.write(`demo failed: ${err.message}\n`);
} finally {
  child.kill('SIGTERM');
}
process.exitCode = failed ? 1 : 0;
