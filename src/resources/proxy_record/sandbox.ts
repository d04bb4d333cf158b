// Proxy records of an organization: a domain, its CNAME target and a provisioning status, as the
// real API keeps them. The API does not validate the domain (it stores what it is sent and a bad
// domain ends in `erroring`); a domain is unique across the whole API; an organization holds at
// most `max_proxy_records` (2 by default), records still deleting included. Deleting a record that
// was provisioned is asynchronous: it stays listed as `deleting` for the sandbox's deletion delay.
import { validationError, viewError } from '../../sandbox/errors.js';
import { nowIso, proxyTarget, uuidv7 } from '../../sandbox/ids.js';
import { clone, type Json, type JsonObject } from '../../sandbox/json.js';
import type { OrganizationState, ProxyRecordState, SandboxState } from '../../sandbox/state.js';
import { isHostname } from '../../sandbox/validation.js';
import { requireOrganizationAdmin } from '../../sandbox/auth.js';
import { serverError } from '../../sandbox/errors.js';
import type { SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';

export const PROXY_STATUSES = ['waiting', 'issuing', 'valid', 'warning', 'erroring', 'deleting', 'timed_out'] as const;
export const DEFAULT_MAX_PROXY_RECORDS = 2;
/** Statuses the real API deletes at once (nothing was provisioned); the others go through `deleting`. */
const DELETED_AT_ONCE = new Set(['waiting', 'erroring', 'timed_out']);
const MAX_DOMAIN = 64;
export const BAD_DOMAIN_MESSAGE = 'The domain is not a valid host name: no certificate can be issued for it.';

function canonical(domain: string): string {
  return domain.toLowerCase().replace(/\.$/, '');
}

export function maxProxyRecords(org: OrganizationState): number {
  return org.max_proxy_records ?? DEFAULT_MAX_PROXY_RECORDS;
}

/** Whether a record is still there at `now` (a finished deletion is gone even before it is purged). */
export function isPresent(r: ProxyRecordState, now: number): boolean {
  return r.deleting_until === undefined || Date.parse(r.deleting_until) > now;
}

export function orgProxyRecords(state: SandboxState, organization: string, now: number): ProxyRecordState[] {
  return state.proxy_records.filter((r) => r.organization === organization && isPresent(r, now));
}

function checkDomain(state: SandboxState, value: Json | undefined, selfId: string | null, now: number): string {
  if (value === undefined) throw validationError('domain', 'This field is required.', 'required');
  if (typeof value !== 'string') throw validationError('domain', 'Not a valid string.', 'invalid');
  if (value === '') throw validationError('domain', 'This field may not be blank.', 'blank');
  if ([...value].length > MAX_DOMAIN) throw validationError('domain', `Ensure this field has no more than ${MAX_DOMAIN} characters.`, 'max_length');
  const taken = state.proxy_records.some((r) => r.id !== selfId && isPresent(r, now) && canonical(r.domain) === canonical(value));
  if (taken) throw validationError('domain', 'proxy record with this domain already exists.', 'unique');
  return value;
}

/** The record as answered (the list, create, read and update answer the same shape). */
export function renderProxyRecord(r: ProxyRecordState): JsonObject {
  const { organization: _org, deleting_until: _until, ...rest } = r;
  return clone(rest);
}

export interface ProxyCreateOptions { status?: string; message?: string | null; now?: number; ignoreLimit?: boolean }

/**
 * Creates a record as the API does: no check of the domain's form (a bad one is stored and
 * ends in `erroring`), uniqueness across organizations, and the organization's limit (answered
 * 400 `{"detail"}` like the real API; a seed may hold more, as after a plan downgrade).
 */
export function createProxyRecord(state: SandboxState, org: OrganizationState, body: JsonObject, opts: ProxyCreateOptions = {}): ProxyRecordState {
  const now = opts.now ?? Date.now();
  if (!opts.ignoreLimit) {
    const max = maxProxyRecords(org);
    if (orgProxyRecords(state, org.id, now).length >= max) {
      const detail = `Maximum of ${max} proxy records per organization.`;
      throw viewError(400, { detail }, detail);
    }
  }
  const domain = checkDomain(state, body.domain, null, now);
  const created = nowIso();
  const valid = isHostname(domain) && domain === domain.trim();
  const record: ProxyRecordState = {
    id: uuidv7(),
    organization: org.id,
    domain,
    target_cname: proxyTarget(org.id, domain),
    status: valid ? opts.status ?? 'waiting' : 'erroring',
    message: valid ? opts.message ?? null : BAD_DOMAIN_MESSAGE,
    created_at: created,
    updated_at: created,
    created_by: state.user.id,
  };
  state.proxy_records.push(record);
  return record;
}

/** PATCH: only the domain is writable; a new domain starts provisioning again. */
export function updateProxyRecord(state: SandboxState, record: ProxyRecordState, body: JsonObject, now: number): void {
  if (!Object.prototype.hasOwnProperty.call(body, 'domain')) return;
  const domain = checkDomain(state, body.domain, record.id, now);
  if (domain === record.domain) return;
  const valid = isHostname(domain);
  record.domain = domain;
  record.target_cname = proxyTarget(record.organization, domain);
  record.status = valid ? 'waiting' : 'erroring';
  record.message = valid ? null : BAD_DOMAIN_MESSAGE;
  record.updated_at = nowIso();
}

export function findProxyRecord(state: SandboxState, organization: string, id: string, now: number): ProxyRecordState | undefined {
  return state.proxy_records.find((r) => r.id === id && r.organization === organization && isPresent(r, now));
}

/**
 * DELETE: a record that was never provisioned (waiting, erroring, timed_out) goes at once; any
 * other is marked `deleting` and goes once `delayMs` has passed (at once when it is 0).
 */
export function deleteProxyRecord(state: SandboxState, record: ProxyRecordState, now: number, delayMs: number): void {
  if (DELETED_AT_ONCE.has(record.status) || delayMs <= 0) {
    state.proxy_records = state.proxy_records.filter((r) => r.id !== record.id);
    return;
  }
  record.status = 'deleting';
  record.deleting_until ??= new Date(now + delayMs).toISOString();
  record.updated_at = nowIso();
}

/** Removes records whose deletion has finished. */
export function purgeProxyRecords(state: SandboxState, now: number): void {
  if (state.proxy_records.some((r) => !isPresent(r, now))) state.proxy_records = state.proxy_records.filter((r) => isPresent(r, now));
}

// ---------------------------------------------------------------------------------------------
// The proxy record kind in the sandbox, answered as the real API's view answers it: the list is
// one page `{results, max_proxy_records}` (newest first), create answers 200, delete answers
// 200 `{"success": true}` (a record no longer there: 500, as the real view's unguarded lookup
// fails), read and update as usual. Writes need an organization admin.
// ---------------------------------------------------------------------------------------------

const recordOf = (r: JsonObject) => r as ProxyRecordState;

export const model: SandboxModel = {
  kind: 'proxy_record',
  collection: 'proxy_records',
  path: '/api/organizations/:org/proxy_records/',
  parent: 'organization',
  scopes: { read: 'organization:read', write: 'organization:write' },
  pagination: 'plain',
  id: 'uuid',
  create: { status: 200 },
  update: true,
  delete: 'hard',
  fields: {},
  // The real API keeps no activity log of proxy records.
  hooks: {
    exists: (r, now) => isPresent(recordOf(r), now),
    authorize: (ctx) => requireOrganizationAdmin(ctx.state, ctx.request.key),
    listReply: (ctx) => {
      const records = orgProxyRecords(ctx.state, ctx.organization.id, ctx.now())
        .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
      return { status: 200, body: { results: records.map(renderProxyRecord), max_proxy_records: maxProxyRecords(ctx.organization) } };
    },
    createReply: (ctx) => ({ status: 200, body: renderProxyRecord(createProxyRecord(ctx.state, ctx.organization, ctx.request.body, { now: ctx.now() })) }),
    updateReply: (record, ctx) => {
      updateProxyRecord(ctx.state, recordOf(record), ctx.request.body, ctx.now());
      return { status: 200, body: renderProxyRecord(recordOf(record)) };
    },
    deleteReply: (record, ctx) => {
      deleteProxyRecord(ctx.state, recordOf(record), ctx.now(), ctx.request.store.deletionDelayMs);
      return { status: 200, body: { success: true } };
    },
    render: (record) => renderProxyRecord(recordOf(record)),
  },
  // A DELETE of a record no longer there fails in the real view's lookup (500), not with 404.
  missingDelete: () => serverError(),
  maintain: purgeProxyRecords,
  seeds: [{
    key: 'proxy_records',
    at: 'organization',
    apply: (state, { organization }, value, where, fail) => {
      for (const [ri, record] of seedList(value, where, fail).entries()) {
        const rat = `${where}[${ri}]`;
        const status = record.status ?? 'waiting';
        if (typeof status !== 'string' || !(PROXY_STATUSES as readonly string[]).includes(status)) fail(`${rat}.status`, `must be one of ${PROXY_STATUSES.join(', ')}`);
        const message = record.message ?? null;
        if (message !== null && typeof message !== 'string') fail(`${rat}.message`, 'must be a string or null');
        seedApply(rat, fail, () => createProxyRecord(state, organization, record, { status: status as string, message: message as string | null, ignoreLimit: true }));
      }
    },
  }],
  contract: {
    item: { domain: 'contract.example.com' },
    // The domain is the only writable field: a record is never updated, and drifts by going away.
    drift: 'delete',
  },
};
