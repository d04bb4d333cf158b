// A scratch directory with configuration files, and the CLI run against a sandbox.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli, type CliResult } from './cli.js';

export const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';

export interface Workspace {
  dir: string;
  /** Writes a file below the workspace and returns its path. */
  write(name: string, content: string): string;
  path(name: string): string;
  cli(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  remove(): void;
}

export function workspace(target: { baseUrl: string; apiKey: string }): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'hogsync-test-'));
  return {
    dir,
    write(name, content) {
      const file = join(dir, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    path: (name) => join(dir, name),
    cli: (args, env = {}) => runCli(args, { cwd: dir, env: { HOGSYNC_BASE_URL: target.baseUrl, HOGSYNC_API_KEY: target.apiKey, ...env } }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A configuration file for the default organization. */
export function config(body: string): string {
  return `organization: ${ORG}\n${body}`;
}
