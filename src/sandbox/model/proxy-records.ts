// Proxy records of an organization: a domain, its CNAME target and a provisioning status, as the
// real API keeps them. The API does not validate the domain (it stores what it is sent and a bad
// domain ends in `erroring`); a domain is unique across the whole API; an organization holds at
// most `max_proxy_records` (2 by default), records still deleting included. Deleting a record that
// was provisioned is asynchronous: it stays listed as `deleting` for the sandbox's deletion delay.
import { validationError, viewError } from '../errors.js';
import { nowIso, proxyTarget, uuidv7 } from '../ids.js';
import { clone, type Json, type JsonObject } from '../json.js';
import type { OrganizationState, ProxyRecordState, SandboxState } from '../state.js';
import { isHostname } from '../validation.js';

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
