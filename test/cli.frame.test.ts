import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runCli } from './support/cli.js';
import { VERSION } from '../src/version.js';

describe('CLI frame', () => {
  it('prints the package version, the one the User-Agent names', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    // bin/hogsync.js answers --version from package.json; the rest of the CLI uses VERSION.
    expect(VERSION).toBe(pkg.version);
    expect((await runCli(['-V'])).stdout).toBe(`${pkg.version}\n`);
  });

  it('shows examples and exit codes in help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit codes:');
    expect(r.stdout).toContain('hogsync apply --plan plan.json --auto-approve');
  });

  it.each(['validate', 'plan', 'apply', 'drift', 'export', 'show', 'fmt', 'sandbox', 'schema'])('%s --help shows a real example, and defaults as they are typed', async (verb) => {
    const r = await runCli([verb, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\$ hogsync ${verb}`));
    // commander would quote string defaults ("10") and show repeatable options' (default: []).
    expect(r.stdout).not.toMatch(/default: "|default: \[\]/);
    if (verb === 'sandbox') expect(r.stdout).toContain('(default: 8010)');
    if (verb === 'apply') expect(r.stdout).toContain('(default: 30)');
  });

  it('rejects an unknown command with exit 1 and no stack trace', async () => {
    const r = await runCli(['bogus']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'bogus'");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('takes the common options before the verb too', async () => {
    const r = await runCli(['--base-url', 'http://example.com', '--parallelism', '3', 'plan', 'examples/basic'], { env: { HOGSYNC_API_KEY: 'phx_frame_test_key_000000' } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: refusing to send the API key over plain http:// to example.com; use https:// (http:// is allowed only for loopback hosts); it is set by --base-url http://example.com');
    const bad = await runCli(['--parallelism', '0', 'plan', 'examples/basic'], { env: { HOGSYNC_API_KEY: 'phx_frame_test_key_000000' } });
    expect(bad.stderr.trim()).toBe('error: --parallelism must be a whole number from 1 to 100, got "0"');
  });

  it.each([
    [['plan', '--parallelism', '0x10'], 'error: --parallelism must be a whole number from 1 to 100, got "0x10"'],
    [['plan', '--parallelism', '1e1'], 'error: --parallelism must be a whole number from 1 to 100, got "1e1"'],
    [['plan', '--max-rate', ''], 'error: --max-rate must be a whole number from 1 to 1000000, got ""'],
    [['apply', '--max-delete-percent', ''], 'error: --max-delete-percent must be a number from 0 to 100, got ""'],
    [['apply', '--max-delete-percent', '0x30'], 'error: --max-delete-percent must be a number from 0 to 100, got "0x30"'],
    [['apply', '--max-delete-percent', '101'], 'error: --max-delete-percent must be a number from 0 to 100, got "101"'],
  ])('refuses %j with one line', async (args, message) => {
    const r = await runCli([...args, 'examples/basic'], { env: { HOGSYNC_API_KEY: 'phx_frame_test_key_000000', HOGSYNC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(message);
  });

  it('schema prints the JSON Schema', async () => {
    const r = await runCli(['schema']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
