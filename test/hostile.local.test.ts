// Hostile local surroundings: what the command line, the file system and the files hand to
// hogsync. Families covered:
//   - `--out` targets that are not plain files: a character device that fails every write
//     (/dev/full: ENOSPC), /dev/null, a symbolic link to a device, a link to a file, the
//     process's own stdout, a directory, a FIFO nobody reads. Devices and links are never
//     replaced by a regular file, and a failed write is exit 1, never "Saved".
//   - terminal injection through what the user did not write: escape sequences and
//     right-to-left overrides in keys of the files, in unknown options
//   - raw control characters in YAML (a NUL byte), refused at file:line:col
//   - a key typed into an option that does not exist (`--api-key=phx_…`): never echoed
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { lstatSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { BIN } from './support/cli.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { EVERY_ACTION_SEED, config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

let sandbox: SandboxHandle;
let ws: Workspace;

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: EVERY_ACTION_SEED });
  ws = workspace(sandbox);
  ws.write('h.yaml', config('roles:\n  - name: Engineers\n'));
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const isDevice = (path: string) => statSync(path).isCharacterDevice();

describe('--out never replaces a device or a link, and reports write errors', () => {
  it('a device that fails every write (/dev/full) is an error, not "Saved", and stays a device', async () => {
    for (const verb of [['plan', 'h.yaml'], ['drift', 'h.yaml']]) {
      const r = await ws.cli([...verb, '--out', '/dev/full']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('error: cannot write /dev/full: ENOSPC\n');
      expect(r.stderr).not.toContain('Saved');
      expect(isDevice('/dev/full')).toBe(true);
    }
  });

  it('a symbolic link to a device is written through, and stays a link to a device', async () => {
    symlinkSync('/dev/full', ws.path('full-link'));
    const r = await ws.cli(['plan', 'h.yaml', '--out', 'full-link']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: cannot write full-link: ENOSPC\n');
    expect(lstatSync(ws.path('full-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(ws.path('full-link'))).toBe('/dev/full');
    expect(isDevice('/dev/full')).toBe(true);
  });

  it('/dev/null takes the plan and stays /dev/null', async () => {
    const r = await ws.cli(['plan', 'h.yaml', '--out', '/dev/null']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Saved the plan to /dev/null; apply it with: hogsync apply --plan /dev/null\n');
    expect(isDevice('/dev/null')).toBe(true);
  });

  it('the process\'s own stdout (/dev/stdout, a link to /proc/self/fd/1) is written in place', async () => {
    // A shell pipeline (`plan --out /dev/stdout | …`): stdout is a pipe, written through.
    // Run asynchronously: the sandbox answers from this process.
    const { stdout: out } = await promisify(execFile)('sh', ['-c', `"${process.execPath}" "${BIN}" plan h.yaml --out /dev/stdout --format json | cat`], {
      cwd: ws.dir, encoding: 'utf8', env: { ...process.env, HOGSYNC_BASE_URL: sandbox.baseUrl, HOGSYNC_API_KEY: sandbox.apiKey },
    });
    // Written twice to the same pipe: once as the --out file, once as the JSON output.
    const half = out.slice(0, out.length / 2);
    expect(out).toBe(half + half);
    expect(JSON.parse(half).kind).toBe('plan');
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
  });

  it('a link to a regular file replaces the file it points at and stays a link', async () => {
    writeFileSync(ws.path('real.json'), 'old');
    symlinkSync('real.json', ws.path('link.json'));
    const r = await ws.cli(['plan', 'h.yaml', '--out', 'link.json']);
    expect(r.code).toBe(0);
    expect(lstatSync(ws.path('link.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(ws.path('real.json'), 'utf8')).kind).toBe('plan');
  });

  it('a directory and a FIFO nobody reads are refused at once', async () => {
    execFileSync('mkfifo', [ws.path('pipe')]);
    const started = Date.now();
    for (const [out, why] of [['.', 'it is a directory'], ['pipe', 'it is a pipe that nothing reads']]) {
      const r = await ws.cli(['plan', 'h.yaml', '--out', out as string]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: cannot write ${out}: ${why}\n`);
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(lstatSync(ws.path('pipe')).isFIFO()).toBe(true);
  });
});

describe('untrusted text reaches the terminal escaped', () => {
  it('a flag key with a right-to-left override is escaped in the validation error', async () => {
    ws.write('rlo.yaml', config('projects:\n  - id: 12345\n    feature_flags:\n      - key: "evil\u202eflag"\n'));
    const r = await ws.cli(['validate', 'rlo.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('evil\\u202eflag');
    expect(r.stderr).not.toMatch(/[\u202a-\u202e\u001b]/);
  });

  it('a raw NUL byte in a YAML file is an error at file:line:col', async () => {
    ws.write('nul.yaml', config('roles:\n  - name: "Eng\u0000ineers"\n'));
    const r = await ws.cli(['validate', 'nul.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('nul.yaml:3:15: a raw NUL byte (U+0000) is not allowed in YAML; remove it (inside double quotes, write it as an escape such as "\\t")\n1 error in 1 file\n');
    // plan refuses the file the same way, before asking the API anything.
    sandbox.stats.byRoute = {};
    const plan = await ws.cli(['plan', 'nul.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('nul.yaml:3:15: a raw NUL byte (U+0000) is not allowed in YAML');
    expect(sandbox.stats.byRoute).toEqual({});
  });

  it('an escape sequence in a YAML file is refused the same way', async () => {
    ws.write('esc.yaml', config('roles:\n  - name: Eng\u001b[2Jineers\n'));
    const r = await ws.cli(['validate', 'esc.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('esc.yaml:3:14: a raw control character (U+001B) is not allowed in YAML; remove it (inside double quotes, write it as an escape such as "\\t")\n1 error in 1 file\n');
  });
});

describe('the command line', () => {
  it('an option that does not exist never echoes its value (a key typed into it)', async () => {
    const key = 'phx_typed_into_the_wrong_option_0123456789';
    for (const [arg, shown] of [[`--api-key=${key}`, '--api-key=…'], [`-k${key}`, '-k…']]) {
      const r = await ws.cli(['plan', 'h.yaml', arg as string]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: unknown option '${shown}'\n(run with --help for usage)\n`);
      expect(r.stdout + r.stderr).not.toContain('typed_into');
    }
  });

  it('an unknown option with a right-to-left override is escaped', async () => {
    const r = await ws.cli(['plan', 'h.yaml', '--x\u202eyz']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: unknown option '--x\\u202eyz'\n(run with --help for usage)\n");
  });
});
