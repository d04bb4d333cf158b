// A scratch directory with configuration files, and the CLI run against a sandbox.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { runCli, type CliResult } from './cli.js';
import type { SeedDocument } from '../../src/sandbox/seed.js';

import { ORG } from './constants.js';

export { ORG };

export interface Workspace {
  dir: string;
  /** Writes a file below the workspace and returns its path. */
  write(name: string, content: string): string;
  path(name: string): string;
  cli(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  /** The CLI run that must succeed (exit 0; its output is the failure's message otherwise). */
  clean(args: string[]): Promise<CliResult>;
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
    async clean(args) {
      const r = await this.cli(args);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      return r;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A configuration file for the default organization. */
export function config(body: string): string {
  return `organization: ${ORG}\n${body}`;
}

/** A small workspace with an item of every kind to update, delete or leave unmanaged. */
export const EVERY_ACTION_SEED: SeedDocument = {
  organizations: [{
    id: ORG,
    projects: [
      {
        id: 12345, name: 'Web app', timezone: 'UTC', anonymize_ips: false, session_recording_sample_rate: '0.50',
        feature_flags: [
          { key: 'old-flag', name: 'Old', active: true, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } },
          { key: 'kept-flag', name: 'Kept', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
        ],
      },
      { id: 12346, name: 'Mobile app' },
    ],
    proxy_records: [{ domain: 'old.example.com' }, { domain: 'keep.example.com' }],
    roles: [{ name: 'Support', feature_flags_access_level: 21 }, { name: 'Admins', feature_flags_access_level: 37 }],
  }],
};

/** Against EVERY_ACTION_SEED: every kind × action (create, update, delete), one unmanaged record. */
export const EVERY_ACTION_CONFIG = config(`projects:
  - id: 12345
    timezone: Europe/Berlin
    session_recording_sample_rate: "0.25"
    feature_flags:
      - key: new-flag
        name: New
        active: true
        filters: { groups: [ { properties: [], rollout_percentage: 20 } ] }
      - key: kept-flag
        active: false
      - key: old-flag
        ensure: absent
proxy_records:
  - domain: new.example.com
  - domain: old.example.com
    ensure: absent
roles:
  - name: Engineers
    feature_flags_access_level: 37
  - name: Support
    feature_flags_access_level: 37
  - name: Admins
    ensure: absent
`);
