// Proxy records of an organization: a domain, its CNAME target and a provisioning status.
// Domains are unique across the whole API (as on the real one), compared without case or a
// trailing dot.
import { validationError } from '../errors.js';
import { nowIso, proxyTarget, uuidv7 } from '../ids.js';
import { clone, type Json, type JsonObject } from '../json.js';
import type { ProxyRecordState, SandboxState } from '../state.js';
import { isHostname, requireField, stringRule } from '../validation.js';

export const PROXY_STATUSES = ['waiting', 'issuing', 'valid', 'warning', 'erroring', 'deleting', 'timed_out'] as const;

const domainRule = stringRule({ max: 64 });

function canonical(domain: string): string {
  return domain.toLowerCase().replace(/\.$/, '');
}

function checkDomain(state: SandboxState, value: Json, selfId: string | null): string {
  const domain = domainRule(value, 'domain') as string;
  if (!isHostname(domain)) throw validationError('domain', `"${domain}" is not a valid domain name.`, 'invalid');
  const taken = state.proxy_records.some((r) => r.id !== selfId && canonical(r.domain) === canonical(domain));
  if (taken) throw validationError('domain', 'proxy record with this domain already exists.', 'unique');
  return domain;
}

export function renderProxyRecord(r: ProxyRecordState): JsonObject {
  const { organization: _org, ...rest } = r;
  return clone(rest);
}

export function createProxyRecord(state: SandboxState, organization: string, body: JsonObject, extra: { status?: string; message?: string | null } = {}): ProxyRecordState {
  const domain = checkDomain(state, requireField(body, 'domain'), null);
  const now = nowIso();
  const record: ProxyRecordState = {
    id: uuidv7(),
    organization,
    domain,
    target_cname: proxyTarget(domain),
    status: extra.status ?? 'waiting',
    message: extra.message ?? null,
    created_at: now,
    updated_at: now,
    created_by: state.user.id,
  };
  state.proxy_records.push(record);
  return record;
}

/** PATCH: only the domain is writable; a new domain starts provisioning again. */
export function updateProxyRecord(state: SandboxState, record: ProxyRecordState, body: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(body, 'domain')) return;
  const domain = checkDomain(state, body.domain as Json, record.id);
  if (domain === record.domain) return;
  record.domain = domain;
  record.target_cname = proxyTarget(domain);
  record.status = 'waiting';
  record.message = null;
  record.updated_at = nowIso();
}

export function findProxyRecord(state: SandboxState, organization: string, id: string): ProxyRecordState | undefined {
  return state.proxy_records.find((r) => r.id === id && r.organization === organization);
}

export function deleteProxyRecord(state: SandboxState, id: string): void {
  state.proxy_records = state.proxy_records.filter((r) => r.id !== id);
}
