// Proxy record routes of an organization, answered as the real API's view answers them: the list
// is one page `{results, max_proxy_records}` (newest first), create answers 200, delete answers
// 200 `{"success": true}` (a record no longer there: 500, as the real view's unguarded lookup
// fails), read and update as usual. Writes need an organization admin.
import { requireOrganizationAdmin } from '../auth.js';
import { notFound, serverError } from '../errors.js';
import {
  createProxyRecord, deleteProxyRecord, findProxyRecord, maxProxyRecords, orgProxyRecords, renderProxyRecord, updateProxyRecord,
} from '../model/proxy-records.js';
import type { Handler, RequestContext, Route } from '../router.js';
import type { ProxyRecordState, SandboxState } from '../state.js';
import { organizationOf } from './common.js';

function recordIn(ctx: RequestContext, state: SandboxState): ProxyRecordState {
  const org = organizationOf(ctx, state);
  const record = findProxyRecord(state, org.id, ctx.params.id ?? '', ctx.store.clock.now());
  if (!record) throw notFound();
  return record;
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const org = organizationOf(ctx, state);
  const records = orgProxyRecords(state, org.id, ctx.store.clock.now())
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  return { status: 200, body: { results: records.map(renderProxyRecord), max_proxy_records: maxProxyRecords(org) } };
});

const create: Handler = (ctx) => ctx.store.write((state) => {
  const org = organizationOf(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  return { status: 200, body: renderProxyRecord(createProxyRecord(state, org, ctx.body, { now: ctx.store.clock.now() })) };
});

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderProxyRecord(recordIn(ctx, state)) }));

const update: Handler = (ctx) => ctx.store.write((state) => {
  const record = recordIn(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  updateProxyRecord(state, record, ctx.body, ctx.store.clock.now());
  return { status: 200, body: renderProxyRecord(record) };
});

const remove: Handler = (ctx) => ctx.store.write((state) => {
  const org = organizationOf(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  const now = ctx.store.clock.now();
  const record = findProxyRecord(state, org.id, ctx.params.id ?? '', now);
  if (!record) throw serverError();
  deleteProxyRecord(state, record, now, ctx.store.deletionDelayMs);
  return { status: 200, body: { success: true } };
});

export const proxyRecordRoutes: Route[] = [
  {
    pattern: '/api/organizations/:org/proxy_records/',
    methods: { GET: { scope: 'organization:read', handler: list }, POST: { scope: 'organization:write', handler: create } },
  },
  {
    pattern: '/api/organizations/:org/proxy_records/:id/',
    methods: {
      GET: { scope: 'organization:read', handler: read },
      PATCH: { scope: 'organization:write', handler: update },
      DELETE: { scope: 'organization:write', handler: remove },
    },
  },
];
