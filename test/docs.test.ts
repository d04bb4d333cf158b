// The README and the demo are true: README's sample plans are the CLI's real output (regenerated
// by `npm run docs`), every file README points at exists, and `npm run demo` writes plain text
// into a pipe, shows the edit it makes before drift finds it, and ends with a next step that works.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, collectOutput, type CliResult } from './support/cli.js';

function node(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return collectOutput(spawn(process.execPath, args, { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] }));
}

describe('README', () => {
  it('shows sample plans that are the CLI\'s output today (npm run docs -- --check)', async () => {
    const r = await node(['scripts/docs.js', '--check']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('names every dependency package.json has, where it says what each is for', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const section = readme.slice(readme.indexOf('Dependencies, each earning its load time'), readme.indexOf('## Performance'));
    const missing = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((name) => !section.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it('points only at files the repository has', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
    const named = [...readme.matchAll(/`((?:docs|examples|test|scripts|src|schemas|bench|\.ci)\/[\w./-]*[\w-])`/g)].map((m) => m[1] as string);
    expect(links.length + named.length).toBeGreaterThan(10);
    const missing = [...new Set([...links, ...named])].filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});

describe('examples/', () => {
  // README says CI runs `fmt --check` over examples/: every configuration and seed file there, at
  // any depth (the CI recipes of examples/ci/ are workflow files, not hogsync's), found afresh.
  it('every YAML file is in fmt\'s layout, and .ci/run checks them all, not a fixed list', async () => {
    const files = (readdirSync(join(ROOT, 'examples'), { recursive: true }) as string[])
      .map((f) => join('examples', f))
      .filter((f) => /\.ya?ml$/.test(f) && !f.startsWith(join('examples', 'ci')))
      .sort();
    expect(files).toEqual(expect.arrayContaining(['examples/sandbox-seed.yaml', 'examples/people-and-access/sandbox/seed.yaml', 'examples/basic/hogsync.yaml']));
    const r = await node(['bin/hogsync.js', 'fmt', '--check', ...files]);
    expect(r.stdout + r.stderr).toBe(`${files.length} files in the canonical layout.\n`);
    expect(r.code).toBe(0);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toMatch(/find examples -path examples\/ci -prune .*-print/);
    expect(ci).not.toMatch(/fmt --check examples\//);
  }, 60_000);
});

describe('npm run demo', () => {
  it('writes no colour codes into a pipe, shows its edit before drift, and ends with a next step that works', async () => {
    const r = await node(['scripts/demo.js'], { NO_COLOR: undefined, FORCE_COLOR: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    const edit = r.stdout.indexOf('alice@example.com: PATCH');
    const drift = r.stdout.indexOf('5. drift');
    expect(edit).toBeGreaterThan(0);
    expect(drift).toBeGreaterThan(edit);
    expect(r.stdout.slice(edit, drift)).toContain('{"timezone":"America/New_York"}');
    // The next step names files that exist and a command line the CLI accepts.
    const next = r.stdout.slice(r.stdout.indexOf('Demo complete'));
    expect(next).toContain('node bin/hogsync.js sandbox --port 8010 --seed examples/sandbox-seed.yaml');
    expect(next).toContain('node bin/hogsync.js plan examples/basic --format markdown');
    expect(existsSync(join(ROOT, 'examples/sandbox-seed.yaml')) && existsSync(join(ROOT, 'examples/basic'))).toBe(true);
  }, 120_000);
});
