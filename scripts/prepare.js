// `prepare`: npm runs it after `npm ci` / `npm install` in a checkout, and when it installs
// hogsync from a git URL (`npm install -g git+https://…#TAG`), where it builds dist/ before
// packing. For a *global* git install npm hands its `global` setting on to the nested install
// that should fetch the devDependencies, so they land in the global prefix instead of here and
// the build finds no `tsc` (npm/cli#8440). When the build tools are missing, this installs them
// here, from the lockfile, first; then it builds. The same nested install also replaces the
// directory that the real install is about to unpack hogsync into (in the global prefix) by a
// link to this temporary clone, which npm deletes afterwards: the directory is put back.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
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

// Inside a nested global install of this very clone: put back the directory its link replaced.
const prefix = process.env.npm_config_prefix;
if (process.env.npm_config_global === 'true' && prefix) {
  const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const link of [join(prefix, 'lib', 'node_modules', name), join(prefix, 'node_modules', name)]) {
    try {
      if (lstatSync(link).isSymbolicLink() && realpathSync(link) === realpathSync(root)) {
        unlinkSync(link);
        mkdirSync(link);
      }
    } catch {
      // no such link: nothing to undo
    }
  }
}
