// `export --shared`: items of a project's kind (feature flags) that several exported projects
// hold under one key become one organization-level declaration, the value most projects share
// for each field, and `overrides` for the projects that differ. Loaded back, it expands to the
// very items exported one by one, so it plans empty. Items that cannot be shared that way stay
// under their project: those with notes (values left out) or secrets, those whose projects do
// not all carry the same fields, and filters holding ids of one project (cohorts, flag
// dependencies) are never made the shared value (each such project keeps its own).
import { projectBoundIds } from '../config/shared.js';
import { canonicalJson } from '../plan/normalize.js';
import type { ResourceKind } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { identityFieldsOf, identityOf, isChildOf } from '../resources/kind.js';

/** The part of an exported entry sharing reads and writes (see document.ts). */
export interface ShareableEntry {
  kind: ResourceKind;
  address: string;
  key: string;
  data: Record<string, unknown>;
  children: { kind: ResourceKind; entries: ShareableEntry[] }[];
  notes: string[];
  dropped: boolean;
}

export interface SharedGroup<E extends ShareableEntry> { kind: ResourceKind; entries: E[] }

const OVERRIDES = 'overrides';

function hasSecret(entry: ShareableEntry): boolean {
  return Object.entries(entry.kind.fields).some(([field, spec]) => {
    const v = entry.data[field];
    return spec.sensitive && v !== undefined && v !== null && v !== '';
  });
}

/** The value most members hold (the first among equals), skipping values `allowed` refuses. */
function commonValue(values: readonly unknown[], allowed: (v: unknown) => boolean): { value: unknown } | undefined {
  const counts = new Map<string, { value: unknown; n: number }>();
  for (const v of values) {
    if (!allowed(v)) continue;
    const key = canonicalJson(v);
    const c = counts.get(key);
    if (c) c.n++;
    else counts.set(key, { value: v, n: 1 });
  }
  let best: { value: unknown; n: number } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best ? { value: best.value } : undefined;
}

/**
 * Moves the children that several parents share into organization-level groups (returned, to
 * be placed at the top of the document), removing them from their parents. `make` builds an
 * entry of the caller's type.
 */
export function shareChildren<E extends ShareableEntry>(
  groups: SharedGroup<E>[],
  organization: string,
  make: (base: ShareableEntry, from: E) => E,
  kinds: Kinds = KINDS,
): SharedGroup<E>[] {
  const out: SharedGroup<E>[] = [];
  for (const top of groups) {
    const parents = top.entries.filter((e) => !e.dropped);
    if (parents.length < 2) continue;
    const parentIds = parents.map((p) => identityOf(top.kind, p.data));
    for (const kind of kinds.filter((k) => isChildOf(k, top.kind.name))) {
      // Children by key, in the order of the first parent that holds them.
      const byKey = new Map<string, { parent: E; child: E }[]>();
      for (const parent of parents) {
        for (const group of parent.children.filter((g) => g.kind === kind)) {
          for (const child of group.entries as E[]) {
            if (child.dropped) continue;
            const key = kind.matchKey(kind.displayKey(identityOf(kind, child.data)));
            byKey.set(key, [...(byKey.get(key) ?? []), { parent, child }]);
          }
        }
      }
      const shared: E[] = [];
      for (const members of byKey.values()) {
        if (members.length < 2) continue;
        if (members.some(({ child }) => child.notes.length > 0 || hasSecret(child))) continue;
        // An item pinned by id (its name repeats there) is one project's own.
        if (kind.idPin && members.some(({ child }) => 'id' in child.data)) continue;
        const fieldSets = new Set(members.map(({ child }) => Object.keys(child.data).filter((f) => f in kind.fields).sort().join(',')));
        if (fieldSets.size !== 1) continue;
        const fields = Object.keys(kind.fields).filter((f) => f in members[0]!.child.data);

        const base: Record<string, unknown> = {};
        for (const field of fields) {
          const found = commonValue(members.map(({ child }) => child.data[field]), (v) => projectBoundIds(kind, field, v).length === 0);
          if (found) base[field] = found.value;
        }
        const overrides: Record<string, Record<string, unknown>> = {};
        for (const { parent, child } of members) {
          const own: Record<string, unknown> = {};
          for (const field of fields) {
            if (!(field in base) || canonicalJson(base[field]) !== canonicalJson(child.data[field])) own[field] = child.data[field];
          }
          if (Object.keys(own).length > 0) overrides[String(identityOf(top.kind, parent.data))] = own;
        }

        const first = members[0]!.child;
        const identity = identityOf(kind, first.data);
        const projects = members.map(({ parent }) => identityOf(top.kind, parent.data));
        const everywhere = projects.length === parentIds.length;
        const data: Record<string, unknown> = {
          ...identityFieldsOf(kind, identity as string),
          ...(everywhere ? {} : { [top.kind.configKey]: projects }),
          ...base,
          ...(Object.keys(overrides).length > 0 ? { [OVERRIDES]: overrides } : {}),
        };
        const key = kind.displayKey(identity);
        shared.push(make({
          kind, key: `*/${key}`, address: `${kind.name}:${organization}/*/${key}`, data, children: [], notes: [], dropped: false,
        }, first));
        for (const { parent, child } of members) {
          for (const group of parent.children) group.entries = group.entries.filter((e) => e !== child);
        }
      }
      if (shared.length > 0) out.push({ kind, entries: shared });
    }
  }
  return out;
}
