// The sandbox keeps hog functions as the real API does (posthog/api/hog_function.py,
// posthog/cdp/validation.py) and refuses what it refuses: a type change, a required input left
// out, an input of the wrong type, a function without hog or template, mappings on a
// transformation, DELETE (405), the 21st enabled transformation of a project. Lists are abridged,
// hold destinations unless types are named, and never show what alerts own unless asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { validateResponse } from './support/openapi.js';

type Rec = Record<string, unknown>;
const P = 12345;
const H = `/api/projects/${P}/hog_functions/`;

let sandbox: SandboxHandle;
let c: Api;
beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, name: 'Web', hog_functions: [{ name: 'Alert', type: 'internal_destination', hog: 'return' }] }] }] } });
  c = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(stopAllSandboxes);

const webhook = (name: string, extra: Rec = {}) => ({ name, type: 'destination', template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://hooks.example.com/x' } }, ...extra });
async function create(body: Rec): Promise<Rec> {
  const r = await c.post(H, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Rec;
}
const refusal = (r: { status: number; body: unknown }) => [r.status, (r.body as Rec).attr, (r.body as Rec).detail];

describe('sandbox hog functions', () => {
  it('lists abridged records of the named types (destinations when none is named), never deleted ones', async () => {
    const made = await create(webhook('Listed'));
    await create({ name: 'Chain', type: 'transformation', template_id: 'template-geoip', enabled: true });
    const plain = ((await c.get(H)).body as { results: Rec[] }).results;
    expect(plain.map((f) => f.name)).toEqual(['Listed']);
    expect(plain[0]).not.toHaveProperty('inputs');
    expect(plain[0]).toMatchObject({ template: { id: 'template-webhook' } });
    const typed = ((await c.get(`${H}?type=destination,transformation`)).body as { results: Rec[] }).results;
    expect(typed.map((f) => f.name).sort()).toEqual(['Chain', 'Listed']);
    const internal = ((await c.get(`${H}?type=internal_destination`)).body as { results: Rec[] }).results;
    expect(internal.map((f) => f.name)).toEqual(['Alert']);
    const full = (await c.get(`${H}${String(made.id)}/`)).body as Rec;
    expect(full.inputs).toMatchObject({ url: { value: 'https://hooks.example.com/x' } });
    expect(full).not.toHaveProperty('template_id');
    expect((await c.delete(`${H}${String(made.id)}/`)).status).toBe(405);
    expect((await c.patch(`${H}${String(made.id)}/`, { deleted: true })).status).toBe(200);
    expect(((await c.get(H)).body as { results: Rec[] }).results.map((f) => f.name)).toEqual([]);
  });

  it('answers 404 for a deleted function, as the real API (its viewset leaves deleted ones out), but to restore it; deleted flags, cohorts and actions still answer 200', async () => {
    const made = await create(webhook('Gone soon'));
    const at = `${H}${String(made.id)}/`;
    expect((await c.patch(at, { deleted: true })).status).toBe(200);
    expect((await c.get(at)).status).toBe(404);
    expect((await c.patch(at, { name: 'Renamed' })).status).toBe(404);
    expect((await c.patch(at, { deleted: false })).status).toBe(200);
    expect((await c.get(at)).status).toBe(200);
    expect((await c.patch(at, { deleted: true })).status).toBe(200);
    // The others filter deleted ones out of their lists only.
    for (const [path, body] of [
      [`/api/projects/${P}/feature_flags/`, { key: 'gone-flag' }],
      [`/api/projects/${P}/cohorts/`, { name: 'Gone cohort', filters: { properties: { type: 'AND', values: [] } } }],
      [`/api/projects/${P}/actions/`, { name: 'Gone action' }],
    ] as const) {
      const r = await c.post(path, body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const item = `${path}${String((r.body as Rec).id)}/`;
      expect((await c.patch(item, { deleted: true })).status).toBe(200);
      expect([path, (await c.get(item)).status]).toEqual([path, 200]);
    }
  });

  it('reads a secret input back as a marker, and keeps the stored value when the marker is sent', async () => {
    const made = await create({ name: 'Sendgrid', type: 'destination', template_id: 'template-sendgrid', inputs: { api_key: { value: 'SG.stored-secret-1234' }, email: { value: 'a@b.c' }, properties: { value: {} } } });
    expect((made.inputs as Rec).api_key).toEqual({ secret: true });
    const kept = await c.patch(`${H}${String(made.id)}/`, { inputs: { api_key: { secret: true }, email: { value: 'x@y.z' }, properties: { value: {} } } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    const stored = (sandbox.store.snapshot().hog_functions as Rec[]).find((f) => f.id === made.id) as { secrets: { api_key: Rec } };
    expect(stored.secrets.api_key.value).toBe('SG.stored-secret-1234');
  });

  it('refuses a type change, a missing required input, a value of the wrong type, no hog, mappings on a transformation', async () => {
    const made = await create(webhook('Typed'));
    expect(refusal(await c.patch(`${H}${String(made.id)}/`, { type: 'site_destination' }))).toEqual([400, 'type', 'Cannot modify the type of an existing function']);
    expect(refusal(await c.post(H, { ...webhook('No url'), inputs: {} }))).toEqual([400, 'inputs__url', 'This field is required.']);
    expect(refusal(await c.post(H, { ...webhook('Bad debug'), inputs: { url: { value: 'https://x' }, debug: { value: 'yes' } } }))).toEqual([400, 'inputs__debug', 'Value must be a boolean.']);
    expect(refusal(await c.post(H, { name: 'Custom', type: 'destination' }))).toEqual([400, 'hog', 'Required.']);
    expect(refusal(await c.post(H, { name: 'No type', hog: 'return' }))).toEqual([400, 'type', 'This field is required.']);
    const chain = await create({ name: 'Mapped', type: 'transformation', template_id: 'template-geoip' });
    expect(refusal(await c.patch(`${H}${String(chain.id)}/`, { mappings: [{ name: 'm' }] }))).toEqual([400, 'mappings', 'Mappings are only allowed for destinations.']);
  });

  it('puts a new transformation without an order last (one with an order keeps it), and refuses enabling the 21st of a project', async () => {
    const before = ((await c.get(`${H}?type=transformation`)).body as { results: Rec[] }).results;
    const highest = Math.max(0, ...before.map((f) => Number(f.execution_order ?? 0)));
    const last = await create({ name: 'Last', type: 'transformation', template_id: 'template-geoip' });
    expect(last.execution_order).toBe(highest + 1);
    const placed = await create({ name: 'Placed', type: 'transformation', template_id: 'template-geoip', execution_order: 7 });
    expect(placed.execution_order).toBe(7);
    const enabled = before.filter((f) => f.enabled === true).length;
    for (let i = enabled; i < 20; i++) await create({ name: `On ${i}`, type: 'transformation', template_id: 'template-geoip', enabled: true });
    const limit = 'Maximum of 20 enabled transformation functions allowed per team. Please contact support if you need this limit increased, or disable some existing transformations.';
    expect(refusal(await c.post(H, { name: 'One too many', type: 'transformation', template_id: 'template-geoip', enabled: true }))).toEqual([400, 'type', limit]);
    // Enabling a disabled one is refused too; a disabled one may still be made, and an enabled one updated.
    expect(refusal(await c.patch(`${H}${String(last.id)}/`, { enabled: true }))).toEqual([400, 'type', limit]);
    const on = ((await c.get(`${H}?type=transformation`)).body as { results: Rec[] }).results.find((f) => f.enabled === true) as Rec;
    expect((await c.patch(`${H}${String(on.id)}/`, { description: 'still on' })).status).toBe(200);
    // Listed by execution_order.
    const orders = ((await c.get(`${H}?type=transformation&limit=100`)).body as { results: Rec[] }).results.map((f) => Number(f.execution_order));
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
  });

  it('serves its templates as the API does: each by id with its inputs schema (one hogsync does not carry too), 404 for an unknown one, the list by type', async () => {
    const T = `/api/projects/${P}/hog_function_templates/`;
    const one = await c.get(`${T}template-customerio/`);
    expect(one.status).toBe(200);
    expect(validateResponse('GET', `${T}template-customerio/`, 200, one.body)).toEqual([]);
    expect(((one.body as Rec).inputs_schema as Rec[]).filter((s) => s.secret === true).map((s) => s.key)).toEqual(['token']);
    expect((await c.get(`${T}template-customeri/`)).status).toBe(404);
    const listed = await c.get(`${T}?type=transformation`);
    expect(validateResponse('GET', `${T}?type=transformation`, 200, listed.body)).toEqual([]);
    expect(((listed.body as { results: Rec[] }).results).map((t) => t.id).sort()).toEqual(['template-geoip', 'template-ip-anonymization']);
    // A function made from it takes its schema: the secret input reads back as the marker.
    const made = await create({ name: 'CIO', type: 'destination', template_id: 'template-customerio', inputs: { site_id: { value: 's' }, token: { value: 'tok-123456' }, host: { value: 'track.customer.io' }, identifiers: { value: { email: 'x' } } } });
    expect((made.inputs as Rec).token).toEqual({ secret: true });
  });
});
