// A contract test per kind, generated from the kinds' declarations: every registered kind whose
// sandbox model declares a contract (src/sandbox/kind-model.ts, KindContract) goes through the
// same scenario, by the real CLI against the sandbox, through a proxy that records every request:
// create (or, for a kind hogsync never creates, update what the seed holds), plan empty after
// apply, update, drift made by another user in the web app (reported with who did it), a target
// and a --changed-since scoped to the one item, export → files → plan empty, delete the way the
// kind deletes; and every request body it sent valid against the OpenAPI fixture. A new kind is
// covered the moment it is registered.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { changesLogged, identityOf, type ResourceKind } from '../src/resources/kind.js';
import { KINDS } from '../src/resources/registry.js';
import type { KindContract } from '../src/sandbox/kind-model.js';
import { loadSandboxModels } from '../src/sandbox/models.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { validateRequest } from './support/openapi.js';
import { tolerated } from './support/openapi-tolerated.js';
import { ORG, workspace } from './support/workspace.js';
import { expectCanonical } from './support/canonical.js';

const PROJECT = 12345;
const models = await loadSandboxModels();
const covered = KINDS.flatMap((kind) => {
  const model = models.find((m) => m.kind === kind.name);
  return model?.contract ? [{ kind, contract: model.contract }] : [];
});

afterAll(stopAllSandboxes);

/**
 * Kinds the generic scenario cannot drive, each with why, and where their own end-to-end
 * scenario is: the sandbox serves them by routes of its own (src/sandbox/routes/).
 */
const OWN_SCENARIO: Readonly<Record<string, string>> = {
  member: 'a create is an invite, which waits for the invitee (no update, no drift until they join): test/people.e2e.test.ts',
  role_membership: 'a membership has no field to update: test/people.e2e.test.ts',
  access: 'a rule is written by PUT and named by role and email read from other lists: test/people.e2e.test.ts',
  alert: 'an alert lives under an insight, with users by member email and the API\'s refusals: test/alerts.e2e.test.ts',
  subscription: 'a subscription lives under a dashboard, sends deliveries and is unsubscribed from: test/subscriptions.e2e.test.ts',
};

describe('every kind has a contract test', () => {
  it('each registered kind declares its sandbox model and its contract, or has its own scenario', () => {
    expect(covered.map((c) => c.kind.name)).toEqual(KINDS.map((k) => k.name).filter((name) => !(name in OWN_SCENARIO)));
    for (const name of Object.keys(OWN_SCENARIO)) expect(KINDS.map((k) => k.name)).toContain(name);
  });

  it('each kind says whether the activity log records its changes, and the sandbox logs every write of the kinds it records', () => {
    for (const kind of KINDS) {
      // drift --since reads a kind in full unless the log records it: that must be a decision, not a default.
      expect({ kind: kind.name, says: kind.activity !== undefined || kind.unlogged !== undefined }).toEqual({ kind: kind.name, says: true });
      if (!changesLogged(kind)) continue;
      const logged = models.find((m) => m.kind === kind.name)?.activity;
      expect({ kind: kind.name, logs: logged !== undefined }).toEqual({ kind: kind.name, logs: true });
      expect(kind.activity?.scopes, kind.name).toContain(logged?.scope);
    }
  });
});

interface Recorded { method: string; path: string; body: unknown }

/** A loopback proxy in front of the sandbox that records every request the CLI sends. */
async function recordingProxy(target: string): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try { body = text === '' ? undefined : JSON.parse(text); } catch { body = text; }
      requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The configuration that declares the contract's item (with `fields` over its own). */
function configOf(kind: ResourceKind, contract: KindContract, fields: Record<string, unknown> = {}): string {
  const item = { ...contract.item, ...fields };
  let doc: Record<string, unknown>;
  if (kind.projectKind) doc = { projects: [item] };
  else if (kind.parent === 'organization') doc = { [kind.configKey]: [item] };
  else doc = { projects: [{ id: PROJECT, [kind.configKey]: [item] }] };
  // JSON is YAML: the file is written exactly as built.
  return JSON.stringify({ organization: ORG, ...doc }, null, 2);
}

function addressOf(kind: ResourceKind, contract: KindContract): string {
  const key = kind.displayKey(identityOf(kind, contract.item));
  return kind.parent === 'organization' ? `${kind.name}:${ORG}/${key}` : `${kind.name}:${ORG}/${PROJECT}/${key}`;
}

interface PlanJson { changes: Array<{ address: string; action: string; fields: Array<{ path: string }>; attribution?: { by: string } }>; targets?: { left_out: number; changed_since?: { derived: Array<{ address: string }> } } }

/** The scenario of one kind, step by step (each step needs the one before). */
async function scenario(kind: ResourceKind, contract: KindContract): Promise<void> {
  const sandbox = await inProcessSandbox({
    seed: {
      users: [{ first_name: 'Bob', email: 'bob@example.com' }],
      organizations: [{ id: ORG, ...contract.seed?.organization, projects: [{ id: PROJECT, name: 'Web app', ...contract.seed?.project }] }],
    },
  });
  const proxy = await recordingProxy(sandbox.baseUrl);
  const ws = workspace({ baseUrl: proxy.url, apiKey: sandbox.apiKey });
  const address = addressOf(kind, contract);
  const file = ws.path('hogsync.yaml');
  const scope = { organization: ORG, project: kind.parent === 'organization' ? null : PROJECT };
  const git = (args: string[]) => execFileSync('git', args, { cwd: ws.dir, stdio: 'ignore' });
  const plan = async (step: string, args: string[] = [], path = file): Promise<PlanJson> => {
    const r = await ws.cli(['plan', path, '--format', 'json', ...args]);
    expect(r.code, `${step}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout) as PlanJson;
  };
  const apply = async (step: string, args: string[] = []): Promise<void> => {
    const r = await ws.cli(['apply', file, '--auto-approve', ...args]);
    expect(r.code, `${step}: ${r.stdout}${r.stderr}`).toBe(0);
    expect((await plan(`${step}, then plan`)).changes, `${step}: the plan after apply`).toEqual([]);
  };
  /** The live item's API id, read as the kind reads its collection. */
  const liveId = async (): Promise<string | number | undefined> => {
    const query = kind.read === 'search' ? `?${kind.searchQuery?.(String(contract.item[kind.identityField])) ?? ''}` : '';
    const r = await api(sandbox.baseUrl, sandbox.apiKey).get(`${kind.collectionPath(scope)}${query}`);
    const body = r.body as { results?: Array<Record<string, unknown>> } | Array<Record<string, unknown>>;
    const records = (Array.isArray(body) ? body : body.results ?? []).filter((x) => !kind.isGone(x));
    const wanted = kind.matchKey(kind.displayKey(identityOf(kind, contract.item)));
    const record = records.find((x) => kind.matchKey(kind.displayKey(identityOf(kind, x))) === wanted);
    return record ? kind.liveId(record) : undefined;
  };
  try {
    // 1. Create (or update what the seed holds), apply, plan empty.
    ws.write('hogsync.yaml', configOf(kind, contract));
    const first = await plan('create');
    // A kind whose contract item is adopted by its identity (a project by id) is updated, not created.
    const created = kind.canCreate && kind.creatable?.(kind.displayKey(identityOf(kind, contract.item))) !== false;
    expect(first.changes.map((c) => [c.action, c.address]), 'create').toEqual([[created ? 'create' : 'update', address]]);
    await apply('create');

    // 2. Update a field.
    if (contract.update) {
      ws.write('hogsync.yaml', configOf(kind, contract, contract.update));
      const planned = await plan('update');
      expect(planned.changes.map((c) => [c.action, c.address]), 'update').toEqual([['update', address]]);
      expect(planned.changes[0]?.fields.map((f) => f.path), 'update').toEqual(Object.keys(contract.update));
      await apply('update');
    }

    // 3. Drift made by another user in the web app: reported, with who made it where the API logs the kind.
    const id = await liveId();
    expect(id, 'the item is live').toBeDefined();
    const path = kind.itemPath(scope, id as string | number);
    const edit = contract.drift === 'delete' ? { method: 'DELETE', path } : { method: 'PATCH', path, body: contract.drift };
    const edited = await api(sandbox.baseUrl, null).post('/_sandbox/web-edit/', { user: 'bob@example.com', ...edit });
    expect(edited.status, `web edit: ${JSON.stringify(edited.body)}`).toBeLessThan(300);
    const drift = await ws.cli(['drift', file, '--format', 'json']);
    expect(drift.code, `drift: ${drift.stderr}`).toBe(2);
    const report = JSON.parse(drift.stdout) as PlanJson;
    expect(report.changes.map((c) => c.address), 'drift').toEqual([address]);
    if (kind.activity && contract.drift !== 'delete') expect(report.changes[0]?.attribution?.by, 'drift attribution').toBe('bob@example.com');
    // The same drift as a change feed: the log names the item (its sandbox model logs the edit), or the kind is read in full.
    const sinceRun = await ws.cli(['drift', file, '--since', '1h', '--format', 'json']);
    expect(sinceRun.code, `drift --since: ${sinceRun.stderr}`).toBe(2);
    const feed = JSON.parse(sinceRun.stdout) as PlanJson & { targets: { since: { derived: Array<{ address: string }> } } };
    expect(feed.changes.map((c) => c.address), 'drift --since').toEqual([address]);
    expect(feed.targets.since.derived.map((d) => d.address), 'drift --since').toContain(changesLogged(kind) ? address : `${kind.name}:${ORG}/*`);
    if (changesLogged(kind) && contract.drift !== 'delete') expect(feed.changes[0]?.attribution?.by, 'drift --since attribution').toBe('bob@example.com');

    // 4. A target of the item covers it; a target of another item leaves it out.
    expect((await plan('target', ['--target', address])).changes.map((c) => c.address), 'target').toEqual([address]);
    expect((await plan('other target', ['--target', `${kind.name}:${ORG}/no-such-item`])).changes, 'other target').toEqual([]);

    // 5. --changed-since: the last commit declares the item as in step 1; the files now as in step 2.
    git(['init', '-q']);
    ws.write('hogsync.yaml', configOf(kind, contract));
    git(['add', 'hogsync.yaml']);
    git(['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'before']);
    ws.write('hogsync.yaml', configOf(kind, contract, contract.update ?? {}));
    const since = await plan('changed-since', ['--changed-since', 'HEAD']);
    expect(since.targets?.changed_since?.derived.map((d) => d.address), 'changed-since').toEqual(contract.update ? [address] : []);
    expect(since.changes.map((c) => c.address), 'changed-since').toEqual(contract.update ? [address] : []);
    await apply('converge');

    // 6. Export → files → plan empty.
    const out = ws.path('exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--kind', kind.configKey, '--project', String(PROJECT), '--out', out]);
    expect(exported.code, `export: ${exported.stderr}`).toBe(0);
    expectCanonical(readFileSync(out, 'utf8'), `${kind.name} export`);
    expect((await plan('exported', [], out)).changes, 'export then plan').toEqual([]);

    // 7. Delete, the way the kind deletes.
    if (contract.remove !== false && kind.canDelete !== false) {
      ws.write('hogsync.yaml', configOf(kind, contract, { ensure: 'absent' }));
      expect((await plan('delete')).changes.map((c) => [c.action, c.address]), 'delete').toEqual([['delete', address]]);
      await apply('delete', contract.remove?.allow ? ['--allow-delete', contract.remove.allow] : []);
      expect(await liveId(), 'deleted').toBeUndefined();
    }

    // 8. Every request it sent is one the OpenAPI fixture accepts.
    expect(proxy.requests.length).toBeGreaterThan(5);
    const problems = proxy.requests.flatMap((r) => validateRequest(r.method, r.path, r.body)
      .filter((p) => !tolerated(r.method, r.path, p)).map((p) => `${r.method} ${r.path}: ${p}`));
    expect(problems, 'requests against the OpenAPI fixture').toEqual([]);
  } finally {
    ws.remove();
    await proxy.close();
  }
}

describe('contract of each kind', () => {
  it.concurrent.each(covered.map((c) => [c.kind.name, c] as const))('%s: create, plan empty, update, drift, target, --changed-since, export, delete, OpenAPI', async (_name, { kind, contract }) => {
    await scenario(kind, contract);
  }, 120_000);
});
