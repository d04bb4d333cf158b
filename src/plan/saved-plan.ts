// Saved plans (`plan --out FILE`, `apply --plan FILE`): reading one back defensively, and
// naming what changed when it no longer matches the files and the live workspace.
import { HogsyncError } from '../errors.js';
import { canonicalJson } from './normalize.js';
import type { Change, ManagedItem, Plan, PlanSummary, PlanTargets } from './types.js';

export interface SavedPlan {
  fingerprint: string;
  base_url: string;
  sources: string[];
  managed: ManagedItem[];
  changes: Change[];
  summary: Partial<PlanSummary>;
  /** The targets the plan was made with: apply re-plans with the same (its fingerprint covers them). */
  targets?: Omit<PlanTargets, 'left_out'>;
}

const ACTIONS = new Set(['create', 'update', 'delete']);

export function parseSavedPlan(text: string, file: string): SavedPlan {
  const bad = (why: string) => new HogsyncError('usage', `${file} is not a usable hogsync plan: ${why}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw bad('it is not valid JSON (truncated or edited?)');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw bad('it is not a JSON object');
  const p = doc as Record<string, unknown>;
  if (p.format_version !== '1') throw bad(`format_version is ${JSON.stringify(p.format_version ?? null)}, this hogsync reads "1"`);
  if (p.kind !== 'plan') throw bad(`its kind is ${JSON.stringify(p.kind ?? null)}, not "plan"`);
  if (typeof p.fingerprint !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(p.fingerprint)) throw bad('its fingerprint is missing or malformed');
  if (typeof p.base_url !== 'string') throw bad('base_url is missing');
  if (!Array.isArray(p.sources) || !p.sources.every((s) => typeof s === 'string')) throw bad('sources must be a list of file names');
  if (!Array.isArray(p.managed) || !p.managed.every(isManagedItem)) throw bad('managed must be a list of {address, digest}');
  if (!Array.isArray(p.changes)) throw bad('changes must be a list');
  const wrong = p.changes.findIndex((c) => !isChange(c));
  if (wrong >= 0) throw bad(`changes[${wrong}] is not a change (address, kind, organization, project, key, action, fields)`);
  if (p.summary === null || typeof p.summary !== 'object' || Array.isArray(p.summary)) throw bad('summary is missing');
  const targets = p.targets === undefined ? undefined : savedTargets(p.targets);
  if (targets === null) throw bad('targets must be {addresses: [...], changed_since?: {revision, commit, derived: [{address, reason}]}}');
  return {
    fingerprint: p.fingerprint, base_url: p.base_url, sources: p.sources as string[], managed: p.managed as ManagedItem[],
    changes: p.changes as Change[], summary: p.summary as Partial<PlanSummary>, ...(targets ? { targets } : {}),
  };
}

/** A saved plan's targets, or null when they are malformed. */
function savedTargets(v: unknown): Omit<PlanTargets, 'left_out'> | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const t = v as Record<string, unknown>;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (!strings(t.addresses)) return null;
  if (t.changed_since === undefined) return { addresses: t.addresses };
  const c = t.changed_since as Record<string, unknown> | null;
  if (c === null || typeof c !== 'object' || typeof c.revision !== 'string' || typeof c.commit !== 'string' || !Array.isArray(c.derived)) return null;
  const derived = c.derived as unknown[];
  if (!derived.every((d) => d !== null && typeof d === 'object' && typeof (d as { address?: unknown }).address === 'string' && typeof (d as { reason?: unknown }).reason === 'string')) return null;
  return { addresses: t.addresses, changed_since: { revision: c.revision, commit: c.commit, derived: derived as { address: string; reason: string }[] } };
}

function isChange(v: unknown): v is Change {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  return typeof c.address === 'string' && typeof c.kind === 'string' && typeof c.organization === 'string'
    && (c.project === null || typeof c.project === 'number') && typeof c.key === 'string'
    && typeof c.action === 'string' && ACTIONS.has(c.action) && Array.isArray(c.fields)
    && c.fields.every((f) => f !== null && typeof f === 'object' && typeof (f as { path?: unknown }).path === 'string' && typeof (f as { sensitive?: unknown }).sensitive === 'boolean');
}

/**
 * Where a saved plan's contents differ from the plan its fingerprint stands for (`current`,
 * recomputed by apply, whose fingerprint matched): the changes, the counts of the summary and
 * the managed items, compared as values. Unmanaged items are not part of the fingerprint, and
 * blast radii, warnings and positions are advice computed at plan time: none of those is compared.
 */
export function tamperedItems(saved: SavedPlan, current: Plan): string[] {
  const differ: string[] = [];
  // What a change does, not where it was declared (moving a declaration keeps the fingerprint).
  const changeOf = (c: Change) => canonicalJson({
    address: c.address, kind: c.kind, organization: c.organization, project: c.project, key: c.key, action: c.action, step: c.step ?? null,
    fields: c.fields.map((f) => ({ path: f.path, before: f.before, after: f.after, sensitive: f.sensitive })),
  });
  const before = new Map<string, string[]>();
  for (const c of saved.changes) before.set(c.address, [...(before.get(c.address) ?? []), changeOf(c)]);
  const now = new Map<string, string[]>();
  for (const c of current.changes) now.set(c.address, [...(now.get(c.address) ?? []), changeOf(c)]);
  for (const address of new Set([...before.keys(), ...now.keys()])) {
    const a = (before.get(address) ?? []).sort();
    const b = (now.get(address) ?? []).sort();
    if (a.length === 0) differ.push(`${address} (left out of the file)`);
    else if (b.length === 0) differ.push(`${address} (not a change of this plan)`);
    else if (canonicalJson(a) !== canonicalJson(b)) differ.push(`${address} (edited)`);
  }
  for (const count of ['create', 'update', 'delete', 'unchanged'] as const) {
    if (saved.summary[count] !== current.summary[count]) differ.push(`summary.${count}`);
  }
  const managed = (list: ManagedItem[]) => canonicalJson([...list].map((m) => `${m.address} ${m.digest}`).sort());
  if (managed(saved.managed) !== managed(current.managed)) differ.push('managed');
  return differ.sort();
}

function isManagedItem(v: unknown): v is ManagedItem {
  return v !== null && typeof v === 'object' && typeof (v as ManagedItem).address === 'string' && typeof (v as ManagedItem).digest === 'string';
}

/** Addresses whose desired or live state differs between a saved plan and the current plan. */
export function staleItems(saved: SavedPlan, current: Plan): string[] {
  const before = new Map(saved.managed.map((m) => [m.address, m.digest]));
  const now = new Map(current.managed.map((m) => [m.address, m.digest]));
  const changed: string[] = [];
  for (const [address, digest] of now) {
    if (!before.has(address)) changed.push(`${address} (new since the plan)`);
    else if (before.get(address) !== digest) changed.push(`${address} (changed since the plan)`);
  }
  for (const address of before.keys()) if (!now.has(address)) changed.push(`${address} (gone since the plan)`);
  return changed.sort();
}
