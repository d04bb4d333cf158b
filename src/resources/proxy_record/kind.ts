// Proxy records: identity = domain (lower-cased, no trailing dot). The domain is the only
// writable field, so a record is never updated: a new domain is a new record. A create
// answers with the CNAME target the user must point DNS at.
import type { LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/proxy_records/`;
const fields = lazy(() => fieldsFromSchema('proxy_record', ['domain']));

export function normalizeDomain(raw: unknown): string {
  return String(raw).trim().toLowerCase().replace(/\.$/, '');
}

/** Statuses the API deletes a record in at once (nothing was provisioned): its slot is free after the delete. */
const DELETED_AT_ONCE = new Set(['waiting', 'erroring', 'timed_out']);

/** Each record that holds a slot, with its status (records still deleting hold one too). */
function domainsHeld(records: readonly LiveRecord[], gone: readonly LiveRecord[]): string {
  return [...records, ...gone].map((r) => `${normalizeDomain(r.domain)} (${typeof r.status === 'string' ? r.status : 'status unknown'})`).join(', ');
}

/**
 * Warnings of one organization: creates beyond its `max_proxy_records` (records still deleting
 * count; a delete frees a slot only when the API deletes the record at once), and every declared
 * record whose live status is not `valid` yet, with its CNAME target and the API's message.
 */
function checkProxyRecords(view: ScopeView): ScopeCheck {
  const warnings: string[] = [];
  const max = view.meta?.max_proxy_records;
  const creates = view.changes.filter((c) => c.action === 'create');
  if (typeof max === 'number' && creates.length > 0) {
    const held = view.records.length + view.gone.length;
    const freed = view.changes.filter((c) => c.action === 'delete' && DELETED_AT_ONCE.has(String(c.live?.status))).length;
    if (held - freed + creates.length > max) {
      const holders = held > 0 ? `it holds ${held} (${domainsHeld(view.records, view.gone)})` : 'it holds none';
      const n = creates.length === 1 ? '1 proxy record' : `${creates.length} proxy records`;
      const waiting = view.gone.length > 0 ? '; a record still deleting frees its slot once the platform has deleted it, so apply can create then' : '';
      const message = `proxy records: the plan creates ${n} but organization ${view.scope.organization} allows at most ${max} `
        + `(max_proxy_records) and ${holders}, records still deleting included: `
        + `${creates.map((c) => c.address).join(', ')} would exceed the limit and the API would refuse the create${waiting}`;
      // Nothing deleting, nothing this plan deletes: no slot frees by waiting, so it is an error before anything is sent.
      const frees = view.gone.length > 0 || view.changes.some((c) => c.action === 'delete');
      if (!frees) return { error: message, errorAt: view.items.find((i) => i.key === creates[0]?.identity)?.position };
      warnings.push(message);
    }
  }
  const live = new Map(view.records.map((r) => [normalizeDomain(r.domain), r]));
  for (const item of view.items) {
    if (item.ensure !== 'present') continue;
    const record = live.get(normalizeDomain(item.key));
    if (!record || typeof record.status !== 'string' || record.status === 'valid') continue;
    const domain = normalizeDomain(record.domain);
    const target = typeof record.target_cname === 'string' ? `; DNS: point ${domain} CNAME ${record.target_cname}` : '';
    const message = typeof record.message === 'string' && record.message !== '' ? `; the API says: ${record.message}` : '';
    warnings.push(`proxy_record:${view.scope.organization}/${domain} is ${record.status}, not valid yet${target}${message}`);
  }
  return { warnings };
}

export const proxyRecord: ResourceKind = {
  name: 'proxy_record',
  configKey: 'proxy_records',
  apiScope: 'organization',
  prunable: true,
  identityField: 'domain',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  // The real API answers create with 200 or 201 and delete with 204 or 200 {"success": true};
  // a DELETE retried after a lost answer finds the record gone (404; a 500 from the real view's
  // unguarded lookup is settled by apply's re-read, src/apply/verify.ts confirmDeletes).
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
  check: checkProxyRecords,
  // No activity: the real API keeps no log of proxy records (nor of their status changes).
  unlogged: 'the API keeps no activity log of proxy records',
  waitFor: (action, message, status) => {
    if (action !== 'create' || status !== 400) return undefined;
    if (/maximum of \d+ proxy records/i.test(message)) return 'records still deleting hold a slot until the platform has deleted them (plan lists each record that holds one, with its status)';
    if (/already exists/i.test(message)) return 'a record of this domain still deleting holds it until the platform has deleted it (if another organization holds it, that organization must delete it)';
    return undefined;
  },
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
