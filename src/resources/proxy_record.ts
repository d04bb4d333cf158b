// Proxy records: identity = domain (lower-cased, no trailing dot). The domain is the only
// writable field, so a record is never updated: a new domain is a new record. A create
// answers with the CNAME target the user must point DNS at.
import type { ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema, lazy } from './schema.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/proxy_records/`;
const fields = lazy(() => fieldsFromSchema('proxy_record', ['domain']));

export function normalizeDomain(raw: unknown): string {
  return String(raw).trim().toLowerCase().replace(/\.$/, '');
}

export const proxyRecord: ResourceKind = {
  name: 'proxy_record',
  configKey: 'proxy_records',
  prunable: true,
  identityField: 'domain',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  get fields() { return fields(); },
  // The real API answers create with 200 or 201 and delete with 204 or 200 {"success": true};
  // a DELETE retried after a lost answer finds the record gone (404).
  createStatuses: [200, 201],
  deleteStatuses: [200, 204, 404],
  displayKey: normalizeDomain,
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as string,
  // Deletion is asynchronous: a record the platform is still deleting is gone for hogsync
  // (never deleted twice, not unmanaged, no drift), though it still counts against the limit.
  isGone: (r) => r.status === 'deleting',
  createCall: (s, key) => ({ method: 'POST', path: base(s), body: { domain: key } }),
  updateCall: () => { throw new Error('proxy records have no updatable field'); },
  deleteCall: (s, id) => ({ method: 'DELETE', path: proxyRecord.itemPath(s, id) }),
  created: (record, domain) => {
    if (typeof record.target_cname !== 'string') return undefined;
    const status = typeof record.status === 'string' ? record.status : undefined;
    return {
      fields: status === undefined ? { target_cname: record.target_cname } : { target_cname: record.target_cname, record_status: status },
      notes: [`DNS: point ${domain} CNAME ${record.target_cname} (status ${status ?? 'unknown'})`],
    };
  },
};
