// References by name: where a kind's fields hold the id of another item (a flag's cohort
// property, a cohort's action filter), the files may write `{ KIND: NAME }` instead, and the
// engine resolves it in the item's own project. This module finds both forms at a kind's
// declared sites (ReferenceSite, src/resources/kind.ts) and rewrites one into the other; which
// item a name means is decided by the planner (src/plan/references.ts), which knows the
// declared and live items.
import type { KindName, ReferenceSite, ResourceKind } from './kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One place a site holds something: the object holding it, its path below the field (for messages), and the value there. */
export interface SiteHit { site: ReferenceSite; holder: Obj; path: Array<string | number>; value: unknown }

/** A reference by name: `{ cohort: Staff }`, as written. */
export interface NamedReference { kind: KindName; name: string }

/** The one-key object `{ KIND: NAME }` when `value` is one (any kind name; the caller checks it is the site's). */
export function namedReference(value: unknown): NamedReference | undefined {
  if (!isObj(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const kind = keys[0] as string;
  const name = value[kind];
  return typeof name === 'string' || typeof name === 'number' ? { kind, name: String(name) } : undefined;
}

/** One step of a site's path: a key, a list's items (`name[]`), or any depth (`**`). */
type Step = { any: true } | { any: false; name: string; list: boolean };

const steps = new Map<string, Step[]>();
function stepsOf(path: string): Step[] {
  let s = steps.get(path);
  if (!s) {
    s = path === '' ? [] : path.split('.').map((step): Step => (step === '**' ? { any: true }
      : step.endsWith('[]') ? { any: false, name: step.slice(0, -2), list: true } : { any: false, name: step, list: false }));
    steps.set(path, s);
  }
  return s;
}

/**
 * Visits the objects the path from step `i` on reaches below `value`. `at` is one stack of
 * the path so far, pushed and popped (this runs for every site of every declared item):
 * `visit` copies it if it keeps it.
 */
function reach(value: unknown, path: readonly Step[], i: number, at: Array<string | number>, visit: (obj: Obj, at: Array<string | number>) => void): void {
  if (i === path.length) {
    if (isObj(value)) visit(value, at);
    return;
  }
  const step = path[i]!;
  if (step.any) {
    // Every object at any depth, this one included.
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) {
        for (let j = 0; j < v.length; j++) { at.push(j); walk(v[j]); at.pop(); }
        return;
      }
      if (!isObj(v)) return;
      reach(v, path, i + 1, at, visit);
      for (const k in v) {
        const child = v[k];
        if (child !== null && typeof child === 'object') { at.push(k); walk(child); at.pop(); }
      }
    };
    walk(value);
    return;
  }
  // `[]` alone: the items of the list the path has reached (a field that is itself a list).
  if (!isObj(value) && !(step.list && step.name === '' && Array.isArray(value))) return;
  const next = step.name === '' ? value : (value as Obj)[step.name];
  if (!step.list) {
    if (next === undefined) return;
    at.push(step.name);
    reach(next, path, i + 1, at, visit);
    at.pop();
    return;
  }
  if (!Array.isArray(next)) return;
  for (let j = 0; j < next.length; j++) {
    if (step.name === '') {
      at.push(j);
      reach(next[j], path, i + 1, at, visit);
      at.pop();
      continue;
    }
    at.push(step.name, j);
    reach(next[j], path, i + 1, at, visit);
    at.length -= 2;
  }
}

/** Everything the kind's sites hold in one field's value (references by name and raw ids alike). */
export function siteHits(kind: ResourceKind, field: string, value: unknown): SiteHit[] {
  return hitsOf(kind.references ?? [], field, value);
}

/** Sites that share a field and a path, with their places in the list they came from, and the keys they hold values under. */
interface SiteGroup { field: string; steps: Step[]; members: Array<{ site: ReferenceSite; index: number }>; keys: string[] }

/**
 * Whether the path from step `i` on reaches, below `value`, an object holding one of `keys`
 * (or a `**` step, left to the walk). Most items hold nothing at their sites (a flag whose
 * conditions have no properties): this answers for them without the walk's stack, path copies
 * and closures.
 */
function mayHold(value: unknown, path: readonly Step[], i: number, keys: readonly string[]): boolean {
  if (i === path.length) {
    if (!isObj(value)) return false;
    for (let k = 0; k < keys.length; k++) if ((keys[k] as string) in value) return true;
    return false;
  }
  const step = path[i]!;
  if (step.any) return true;
  if (!isObj(value) && !(step.list && step.name === '' && Array.isArray(value))) return false;
  const next = step.name === '' ? value : (value as Obj)[step.name];
  if (!step.list) return next !== undefined && mayHold(next, path, i + 1, keys);
  if (!Array.isArray(next)) return false;
  for (let j = 0; j < next.length; j++) if (mayHold(next[j], path, i + 1, keys)) return true;
  return false;
}

const groupings = new WeakMap<readonly ReferenceSite[], SiteGroup[]>();

function groupsOf(sites: readonly ReferenceSite[]): SiteGroup[] {
  let groups = groupings.get(sites);
  if (!groups) {
    const found: SiteGroup[] = [];
    sites.forEach((site, index) => {
      const steps = stepsOf(site.path);
      const group = found.find((g) => g.field === site.field && g.steps === steps);
      if (group) {
        group.members.push({ site, index });
        if (!group.keys.includes(site.key)) group.keys.push(site.key);
      } else found.push({ field: site.field, steps, members: [{ site, index }], keys: [site.key] });
    });
    groupings.set(sites, (groups = found));
  }
  return groups;
}

/**
 * What the given sites hold in one field's value, site by site in their order. Sites on one
 * path (a flag's cohort and flag properties) are reached in one walk: this runs for every
 * declared item of a kind with sites, most of which hold nothing at any.
 */
export function hitsOf(sites: readonly ReferenceSite[], field: string, value: unknown): SiteHit[] {
  if (value === null || typeof value !== 'object') return [];
  let bySite: SiteHit[][] | undefined;
  for (const group of groupsOf(sites)) {
    if (group.field !== field || !mayHold(value, group.steps, 0, group.keys)) continue;
    reach(value, group.steps, 0, [], (obj, at) => {
      for (const { site, index } of group.members) {
        if (site.when && !matchesWhen(obj, site.when)) continue;
        if (!(site.key in obj)) continue;
        ((bySite ??= [])[index] ??= []).push({ site, holder: obj, path: [...at, site.key], value: obj[site.key] });
      }
    });
  }
  return bySite ? bySite.flat() : [];
}

/**
 * What the sites hold across an item's fields (declared or live): each field walked once, its
 * sites' hits in their order. This runs for every declared item and every live record of a kind
 * with sites; nearly all hold nothing, and are answered by the probe alone.
 */
export function hitsIn(sites: readonly ReferenceSite[], fields: Readonly<Record<string, unknown>>): SiteHit[] {
  const groups = groupsOf(sites);
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g] as SiteGroup;
    const value = fields[group.field];
    if (value !== null && typeof value === 'object' && mayHold(value, group.steps, 0, group.keys)) return walkedHits(sites, fields);
  }
  return [];
}

function walkedHits(sites: readonly ReferenceSite[], fields: Readonly<Record<string, unknown>>): SiteHit[] {
  const hits: SiteHit[] = [];
  for (let i = 0; i < sites.length; i++) {
    const field = (sites[i] as ReferenceSite).field;
    if (sites.findIndex((s) => s.field === field) !== i) continue;
    for (const hit of hitsOf(sites, field, fields[field])) hits.push(hit);
  }
  return hits;
}

function matchesWhen(obj: Obj, when: Readonly<Record<string, unknown>>): boolean {
  for (const k in when) if (obj[k] !== when[k]) return false;
  return true;
}

/** Whether any field of the kind may hold references: most kinds have none, and most items none. */
export function hasSites(kind: ResourceKind): boolean {
  return (kind.references?.length ?? 0) > 0;
}

/** The id a site holds, as live records carry ids: numbers (also when written as decimal strings), or strings (UUIDs). */
export function siteId(value: unknown): number | string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || value === '') return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

/** An id as the site writes it (a flag dependency's key is the id as a string). */
export function asSiteValue(site: ReferenceSite, id: string | number): string | number {
  return site.as === 'string' ? String(id) : id;
}

/**
 * A copy of `value` with what each hit holds replaced by `replace(hit)` (undefined: left as it
 * is). Copy-on-write along the hits' paths; the value is returned as is when nothing changes.
 */
export function replaceAtSites(kind: ResourceKind, field: string, value: unknown, replace: (hit: SiteHit) => unknown): unknown {
  let out = value;
  for (const hit of siteHits(kind, field, value)) {
    const next = replace(hit);
    if (next === undefined) continue;
    out = setPath(out, hit.path, next);
  }
  return out;
}

function setPath(value: unknown, path: ReadonlyArray<string | number>, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = [...value];
    copy[head] = setPath(value[head], rest, next);
    return copy;
  }
  if (isObj(value)) return { ...value, [head]: setPath(value[head], rest, next) };
  return value;
}
