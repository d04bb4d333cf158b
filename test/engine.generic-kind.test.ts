// The engine is generic: a kind that exists only in this file (its module, its small HTTP
// server) is read, planned, applied and verified by the real reader, planner, applier and
// verifier, with no file outside this test knowing about it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePlan } from '../src/apply/execute.js';
import { verifyApplied } from '../src/apply/verify.js';
import type { DesiredItem, DesiredState } from '../src/config/model.js';
import { createClient, type ApiClient } from '../src/http/client.js';
import { computePlan } from '../src/plan/planner.js';
import { safetyViolations } from '../src/plan/safety.js';
import type { Execution } from '../src/plan/types.js';
import type { LiveRecord, ResourceKind, Scope } from '../src/resources/kind.js';
import { readLiveState } from '../src/state/live-state.js';
import { rereadApplied } from '../src/state/reread.js';

const ORG = '11111111-2222-4333-8444-555555555555';
const KEY = 'phx_generic_kind_test_key_0123456789';

// --- The made-up kind: gizmos of an organization, identity = serial (case-insensitive). ---

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/gizmos/`;

const gizmo: ResourceKind = {
  name: 'gizmo',
  configKey: 'gizmos',
  prunable: true,
  identityField: 'serial',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  deleteNeedsAllow: true,
  fields: {
    colour: { compare: 'plain', sensitive: false },
    weight: { compare: 'decimal', sensitive: false },
    pin: { compare: 'plain', sensitive: true },
  },
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw).trim(),
  matchKey: (key) => key.toUpperCase(),
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: (r) => r.scrapped === true,
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...values, serial: key } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: gizmo.itemPath(s, id), body: values }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: gizmo.itemPath(s, id) }),
  created: (record, serial) => ({ fields: {}, notes: [`gizmo ${serial} got id ${String(record.id)}`] }),
};
const KINDS = [gizmo];

// --- Its small server: list, create, update, delete; it never stores the colour "invisible". ---

interface Store { next: number; gizmos: Map<number, LiveRecord>; requests: string[] }

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function gizmoServer(store: Store): Server {
  return createServer(async (req, res) => {
    const send = (status: number, value?: unknown) => {
      res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
      res.end(value === undefined ? '' : JSON.stringify(value));
    };
    store.requests.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { detail: 'no key' });
    const list = `/api/organizations/${ORG}/gizmos/`;
    // Routed by path: list reads carry a query (`limit=1000`); this server answers every list in one page.
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const item = new RegExp(`^${list}(\\d+)/$`).exec(path);
    const store_ = (record: LiveRecord, values: Record<string, unknown>) => {
      for (const [k, v] of Object.entries(values)) if (!(k === 'colour' && v === 'invisible')) record[k] = v;
    };
    if (path === list && req.method === 'GET') return send(200, { results: [...store.gizmos.values()], next: null });
    if (path === list && req.method === 'POST') {
      const record: LiveRecord = { id: store.next++, colour: null, weight: null, pin: null };
      store_(record, await body(req));
      store.gizmos.set(record.id as number, record);
      return send(201, record);
    }
    const record = item ? store.gizmos.get(Number(item[1])) : undefined;
    if (!record) return send(404, { detail: 'Not found.' });
    if (req.method === 'PATCH') {
      const values = await body(req);
      if (values.colour === 'refused') return send(400, { type: 'validation_error', detail: 'Colour refused.' });
      store_(record, values);
      return send(200, record);
    }
    if (req.method === 'DELETE') {
      store.gizmos.delete(record.id as number);
      return send(204);
    }
    return send(405, { detail: 'Method not allowed.' });
  });
}

function item(serial: string, fields: Record<string, unknown>, ensure: 'present' | 'absent' = 'present'): DesiredItem {
  return { kind: 'gizmo', organization: ORG, project: null, key: serial, ensure, fields, interpolated: [], position: { file: 'gizmos.yaml', line: 1, col: 1 } };
}

function desired(items: DesiredItem[]): DesiredState {
  return { sources: ['gizmos.yaml'], organizations: [{ id: ORG, items, prune: { gizmos: true } }] };
}

interface ServedGizmos { client: ApiClient; baseUrl: string; close(): Promise<void> }

/** The gizmo server on a loopback port, and a client of it making `parallelism` requests at a time. */
async function serveGizmos(store: Store, parallelism: number): Promise<ServedGizmos> {
  const server: Server = gizmoServer(store);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createClient({ baseUrl, apiKey: KEY, parallelism, requestsPerMinute: Infinity });
  return {
    client, baseUrl,
    close: async () => {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a kind defined in a test', () => {
  const store: Store = { next: 1, gizmos: new Map(), requests: [] };
  let served: ServedGizmos;
  let client: ApiClient;
  let baseUrl: string;

  beforeAll(async () => {
    served = await serveGizmos(store, 2);
    ({ client, baseUrl } = served);
    for (const [serial, colour] of [['AB-1', 'red'], ['ab-2', 'green'], ['AB-3', 'blue']] as const) {
      const id = store.next++;
      store.gizmos.set(id, { id, serial, colour, weight: '1.50', pin: '0000' });
    }
    // A scrapped gizmo is gone: neither planned, nor pruned, nor unmanaged.
    store.gizmos.set(99, { id: 99, serial: 'AB-9', colour: 'grey', weight: null, pin: null, scrapped: true });
  });

  afterAll(async () => {
    await served.close();
  });

  const plan = async (state: DesiredState) => computePlan(state, await readLiveState(client, state, 2, KINDS), { baseUrl, kinds: KINDS });

  it('is planned by its own rules: identity, compare rules, sensitivity, prune, gone records', async () => {
    const state = desired([
      item('ab-1', { colour: 'red', weight: 1.5 }), // same serial in other case, same weight as a decimal: unchanged
      item('AB-2', { colour: 'yellow', pin: '1234' }), // update; the pin is sensitive
      item('AB-4', { colour: 'invisible', weight: '2' }), // create
    ]);
    const { plan: p } = await plan(state);
    expect(p.changes.map((c) => [c.action, c.address])).toEqual([
      ['update', `gizmo:${ORG}/AB-2`],
      ['create', `gizmo:${ORG}/AB-4`],
      ['delete', `gizmo:${ORG}/AB-3`],
    ]);
    expect(p.changes[0]?.fields).toEqual([
      { path: 'colour', before: 'green', after: 'yellow', sensitive: false },
      { path: 'pin', before: '(sensitive)', after: '(sensitive)', sensitive: true },
    ]);
    expect(p.summary).toEqual({ create: 1, update: 1, delete: 1, unchanged: 1, unmanaged: 0 });
    expect(JSON.stringify(p)).not.toContain('1234');
    expect(JSON.stringify(p)).not.toContain('AB-9');
  });

  it('has its own safety rule: deleting one needs --allow-delete gizmo/KEY', async () => {
    const result = await plan(desired([item('AB-1', {}), item('AB-2', {}), item('AB-4', {})]));
    expect(safetyViolations(result, { allowDelete: [], maxDeletePercent: 100 }, KINDS).map((v) => [v.message, v.allowWith]))
      .toEqual([[`deleting gizmo AB-3 (gizmo:${ORG}/AB-3) needs an explicit allow`, '--allow-delete gizmo/AB-3']]);
    expect(safetyViolations(result, { allowDelete: ['gizmo/AB-3'], maxDeletePercent: 100 }, KINDS)).toEqual([]);
  });

  it('is applied and verified, and a second plan finds nothing to do', async () => {
    const state = desired([
      item('ab-1', { colour: 'red', weight: 1.5 }),
      item('AB-2', { colour: 'yellow', pin: '1234' }),
      item('AB-4', { colour: 'invisible', weight: '2' }),
    ]);
    const result = await plan(state);
    const report = await executePlan(result, client, { parallelism: 2 });
    expect(report.summary).toEqual({ applied: 3, failed: 0, skipped: 0 });
    expect(report.notes.get(`gizmo:${ORG}/AB-4`)).toEqual([`gizmo AB-4 got id 4`]);
    expect([...store.gizmos.values()].map((g) => g.serial).sort()).toEqual(['AB-1', 'AB-4', 'AB-9', 'ab-2']);
    expect(store.gizmos.get(2)).toMatchObject({ colour: 'yellow', pin: '1234' });

    // The server did not take the colour "invisible": verification names it.
    const applied = [...result.executions.values()].filter((e): e is Execution => e !== undefined);
    const verification = verifyApplied(result, report.outcomes, await rereadApplied(client, applied, 2));
    expect(verification.notTaken).toEqual(new Map([[`gizmo:${ORG}/AB-4`, ['colour']]]));

    const again = await plan(desired([
      item('ab-1', { colour: 'red', weight: 1.5 }),
      item('AB-2', { colour: 'yellow', pin: '1234' }),
      item('AB-4', { weight: '2.0' }),
    ]));
    expect(again.plan.changes).toEqual([]);
    expect(again.plan.summary.unchanged).toBe(3);
  });
});

describe('a kind that makes one change in ordered steps (laterSteps)', () => {
  // Its pin is set by a call of its own, after the rest: a step of its own.
  const stepped: ResourceKind = { ...gizmo, laterSteps: ({ values }) => ('pin' in values ? [['pin']] : []) };
  const STEPPED = [stepped];
  const store: Store = { next: 1, gizmos: new Map([[1, { id: 1, serial: 'AB-1', colour: 'red', weight: null, pin: '0000' }]]), requests: [] };
  store.next = 2;
  let served: ServedGizmos;
  let client: ApiClient;
  let baseUrl: string;

  beforeAll(async () => {
    served = await serveGizmos(store, 4);
    ({ client, baseUrl } = served);
  });
  afterAll(async () => {
    await served.close();
  });

  const plan = async (state: DesiredState, kind: 'plan' | 'drift' = 'plan') => computePlan(state, await readLiveState(client, state, 2, STEPPED), { baseUrl, kinds: STEPPED, kind });
  const writes = () => store.requests.filter((r) => !r.startsWith('GET'));

  it('plans each step as a change of the item\'s address, in order, and applies each after the one before (a create\'s later steps update what it made)', async () => {
    const state = desired([item('AB-1', { colour: 'yellow', pin: '1111' }), item('AB-5', { colour: 'blue', pin: '2222' }), item('AB-6', { colour: 'pink', pin: '4444' })]);
    const result = await plan(state);
    expect(result.plan.changes.map((c) => [c.action, c.address, c.step, c.fields.map((f) => f.path)])).toEqual([
      ['update', `gizmo:${ORG}/AB-1`, { number: 1, of: 2 }, ['colour']],
      ['update', `gizmo:${ORG}/AB-1`, { number: 2, of: 2 }, ['pin']],
      ['create', `gizmo:${ORG}/AB-5`, { number: 1, of: 2 }, ['colour']],
      ['update', `gizmo:${ORG}/AB-5`, { number: 2, of: 2 }, ['pin']],
      ['create', `gizmo:${ORG}/AB-6`, { number: 1, of: 2 }, ['colour']],
      ['update', `gizmo:${ORG}/AB-6`, { number: 2, of: 2 }, ['pin']],
    ]);
    expect(result.plan.summary).toMatchObject({ create: 2, update: 4 });
    // A drift report says what differs, not the steps: one change per item.
    expect((await plan(state, 'drift')).plan.changes.map((c) => c.step)).toEqual([undefined, undefined, undefined]);

    store.requests.length = 0;
    const report = await executePlan(result, client, { parallelism: 4 });
    expect(report.outcomes.map((o) => [o.address, o.step?.number, o.status])).toEqual([
      [`gizmo:${ORG}/AB-1`, 1, 'applied'], [`gizmo:${ORG}/AB-1`, 2, 'applied'], [`gizmo:${ORG}/AB-5`, 1, 'applied'], [`gizmo:${ORG}/AB-5`, 2, 'applied'],
      [`gizmo:${ORG}/AB-6`, 1, 'applied'], [`gizmo:${ORG}/AB-6`, 2, 'applied'],
    ]);
    expect(report.summary).toEqual({ applied: 6, failed: 0, skipped: 0 });
    const w = writes();
    expect(w.indexOf(`PATCH /api/organizations/${ORG}/gizmos/1/`)).toBeLessThan(w.lastIndexOf(`PATCH /api/organizations/${ORG}/gizmos/1/`));
    expect(w.indexOf(`POST /api/organizations/${ORG}/gizmos/`)).toBeLessThan(w.indexOf(`PATCH /api/organizations/${ORG}/gizmos/2/`));
    expect([...store.gizmos.values()].map((g) => [g.serial, g.pin])).toEqual([['AB-1', '1111'], ['AB-5', '2222'], ['AB-6', '4444']]);
    expect((await plan(state)).plan.changes).toEqual([]);
  });

  it('skips a step whose step before failed, saying so; the next plan has both again', async () => {
    const state = desired([item('AB-1', { colour: 'refused', pin: '3333' }), item('AB-5', { colour: 'blue', pin: '2222' }), item('AB-6', { colour: 'pink', pin: '4444' })]);
    const result = await plan(state);
    const report = await executePlan(result, client, { parallelism: 4 });
    expect(report.outcomes.map((o) => [o.step?.number, o.status, o.error?.startsWith('PATCH') ? 'PATCH refused' : o.error])).toEqual([
      [1, 'failed', 'PATCH refused'],
      [2, 'skipped', 'not started: step 1 of this change was not applied (failed)'],
    ]);
    // The API refused the first step (400): running apply again does not help until the files change.
    expect(report.againHelps).toBe(false);
    expect(store.gizmos.get(1)?.pin).toBe('1111');
    expect((await plan(state)).plan.changes.map((c) => c.step?.number)).toEqual([1, 2]);
  });
});
