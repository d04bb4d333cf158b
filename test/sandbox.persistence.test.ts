import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultState } from '../src/sandbox/defaults.js';
import { createRole } from '../src/resources/role/sandbox.js';
import { SandboxStore } from '../src/sandbox/store.js';
import { runCli } from './support/cli.js';
import { api, DEFAULT_ORG, inProcessSandbox, SEED_EXAMPLE, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';

type Rec = Record<string, unknown>;
interface Page { count: number; results: Rec[] }
const ROLES = `/api/organizations/${DEFAULT_ORG}/roles/`;

let dir = '';
let statePath = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogsync-sandbox-'));
  statePath = join(dir, 'state.json');
});
afterEach(async () => {
  await stopAllSandboxes();
  rmSync(dir, { recursive: true, force: true });
});

function stateOnDisk(): { roles: Rec[]; proxy_records: Rec[]; feature_flags: Rec[]; projects: Rec[] } {
  return JSON.parse(readFileSync(statePath, 'utf8')) as { roles: Rec[]; proxy_records: Rec[]; feature_flags: Rec[]; projects: Rec[] };
}

describe('sandbox state file', () => {
  it('is on disk before a write is answered, and leaves no temporary file behind', async () => {
    const sb = await inProcessSandbox({ statePath });
    const c = api(sb.baseUrl, sb.apiKey);
    expect(stateOnDisk().projects).toHaveLength(2);
    const r = await c.post(ROLES, { name: 'Durable' });
    expect(r.status).toBe(201);
    // Read synchronously right after the answer: the write is already there.
    expect(stateOnDisk().roles.map((x) => x.name)).toEqual(['Durable']);
    await c.patch(`/api/organizations/${DEFAULT_ORG}/projects/12345/`, { timezone: 'Asia/Tokyo' });
    expect(stateOnDisk().projects.find((p) => p.id === 12345)?.timezone).toBe('Asia/Tokyo');
    // A refused write changes nothing on disk.
    const before = readFileSync(statePath, 'utf8');
    expect((await c.post(ROLES, { name: 'durable' })).status).toBe(400);
    expect(readFileSync(statePath, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('serializes concurrent writes: every acknowledged write is kept', async () => {
    const sb = await inProcessSandbox({ statePath });
    const c = api(sb.baseUrl, sb.apiKey);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => c.post(ROLES, { name: `Role ${i}` })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    // Racing creates of one name: exactly one wins.
    const racing = await Promise.all(Array.from({ length: 5 }, () => c.post(`/api/organizations/${DEFAULT_ORG}/proxy_records/`, { domain: 'race.example.com' })));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    await sb.stop();
    expect(stateOnDisk().roles).toHaveLength(25);
    expect(stateOnDisk().proxy_records).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('commits writes queued at any moment, settling them in order and only once on disk', async () => {
    const store = new SandboxStore(defaultState(), statePath);
    await store.save();
    const settled: number[] = [];
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      const name = i % 7 === 6 ? 'Role 0' : `Role ${i}`; // every 7th write is refused (duplicate name)
      writes.push(store.write((state) => createRole(state, DEFAULT_ORG, { name })).then(
        () => { settled.push(i); expect(stateOnDisk().roles.some((r) => r.name === name)).toBe(true); },
        () => { settled.push(i); },
      ));
      if (i % 3 === 0) await Promise.resolve();
      if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    expect(settled).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(stateOnDisk().roles).toHaveLength(26);
    expect(store.writeCount).toBe(26);
    expect(await store.read((state) => state.roles.length)).toBe(26);
  });

  it('restarts in process from the file, with the same key, ids and records', async () => {
    const first = await inProcessSandbox({ statePath });
    const c1 = api(first.baseUrl, first.apiKey);
    const flag = (await c1.post('/api/projects/12345/feature_flags/', { key: 'persisted', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } })).body as Rec;
    await first.stop();
    const second = await inProcessSandbox({ statePath, seed: SEED_EXAMPLE });
    expect(second.origin).toBe('state');
    expect(second.apiKey).toBe(first.apiKey);
    const c2 = api(second.baseUrl, second.apiKey);
    expect((await c2.get(`/api/projects/12345/feature_flags/${flag.id as number}/`)).body).toEqual(flag);
    // The seed was not applied over the existing state.
    expect(((await c2.get('/api/projects/')).body as Page).count).toBe(2);
    // Ids continue after the stored ones.
    const next = (await c2.post('/api/projects/12345/feature_flags/', { key: 'next' })).body as Rec;
    expect(next.id).toBe((flag.id as number) + 1);
  });

  it('loses nothing it answered when the CLI is killed with SIGKILL', async () => {
    const sb = await spawnSandbox(['--state', statePath]);
    const c = api(sb.baseUrl, sb.apiKey);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await c.post(`/api/organizations/${DEFAULT_ORG}/roles/`, { name: `Role k${i}` });
      expect(r.status).toBe(201);
      created.push((r.body as Rec).id as string);
    }
    await c.patch(`/api/organizations/${DEFAULT_ORG}/projects/12346/`, { name: 'Killed mid-flight' });
    expect(await sb.stop('SIGKILL')).toBeNull();

    const again = await spawnSandbox(['--state', statePath]);
    expect(again.apiKey).toBe(sb.apiKey);
    const c2 = api(again.baseUrl, again.apiKey);
    const list = (await c2.get(`/api/organizations/${DEFAULT_ORG}/roles/`)).body as Page;
    expect(list.results.map((r) => r.id)).toEqual(created);
    expect(((await c2.get(`/api/organizations/${DEFAULT_ORG}/projects/12346/`)).body as Rec).name).toBe('Killed mid-flight');
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  it('refuses a state file that is not one, without touching it', async () => {
    writeFileSync(statePath, '{"hello": "world"}\n');
    const r = await runCli(['sandbox', '--port', '0', '--state', statePath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a hogsync sandbox state file');
    expect(r.stdout).toBe('');
    expect(readFileSync(statePath, 'utf8')).toBe('{"hello": "world"}\n');
  });
});
