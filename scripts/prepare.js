// `prepare`: npm runs it after `npm ci` / `npm install` in a checkout, and when it installs
// hogsync from a git URL (`npm install -g git+https://…#TAG`), where it builds dist/ before
// packing. For a *global* git install npm hands its `global` setting on to the nested install
// that should fetch the devDependencies, so they land in the global prefix instead of here and
// the build finds no `tsc` (npm/cli#8440). When the build tools are missing, this installs them
// here, from the lockfile, first; then it builds.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tools = ['node_modules/typescript/bin/tsc', 'node_modules/rolldown/package.json'];
const npm = process.env.npm_execpath;

function run(args) {
  const [cmd, argv] = npm && /\.[cm]?js$/.test(npm) ? [process.execPath, [npm, ...args]] : ['npm', args];
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!tools.every((t) => existsSync(new URL(t, `file://${root}/`)))) {
  process.stderr.write('hogsync prepare: build tools missing (a global install from git); installing them locally first\n');
  run(['ci', '--global=false', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund']);
}
run(['run', 'build']);
