// Proxy record routes of an organization: list, create (201), read, update, delete (204).
import { notFound } from '../errors.js';
import {
  createProxyRecord, deleteProxyRecord, findProxyRecord, renderProxyRecord, updateProxyRecord,
} from '../model/proxy-records.js';
import { paginate } from '../pagination.js';
import type { Handler, RequestContext, Route } from '../router.js';
import type { ProxyRecordState, SandboxState } from '../state.js';
import { organizationOf } from './common.js';

function recordIn(ctx: RequestContext, state: SandboxState): ProxyRecordState {
  const org = organizationOf(ctx, state);
  const record = findProxyRecord(state, org.id, ctx.params.id ?? '');
  if (!record) throw notFound();
  return record;
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const org = organizationOf(ctx, state);
  return { status: 200, body: paginate(state.proxy_records.filter((r) => r.organization === org.id), renderProxyRecord, ctx.url) };
});

const create: Handler = (ctx) => ctx.store.write((state) => {
  const org = organizationOf(ctx, state);
  return { status: 201, body: renderProxyRecord(createProxyRecord(state, org.id, ctx.body)) };
});

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderProxyRecord(recordIn(ctx, state)) }));

const update: Handler = (ctx) => ctx.store.write((state) => {
  const record = recordIn(ctx, state);
  updateProxyRecord(state, record, ctx.body);
  return { status: 200, body: renderProxyRecord(record) };
});

const remove: Handler = (ctx) => ctx.store.write((state) => {
  deleteProxyRecord(state, recordIn(ctx, state).id);
  return { status: 204 };
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
