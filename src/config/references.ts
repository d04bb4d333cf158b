// References by name as the files write them (`value: { cohort: Staff }`): found at the sites
// the item's kind declares, each with where it is written, so the plan can name the line of a
// name it cannot resolve. A reference of another kind than the site takes is a problem here,
// at its line. Which item a name means is the planner's question (src/plan/references.ts).
import type { FilePosition } from '../errors.js';
import { aLabelOf, labelOf, type ReferredItem, type ResourceKind } from '../resources/kind.js';
import { hitsIn, namedReference } from '../resources/references.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import type { DeclaredReference, DesiredItem, DesiredState } from './model.js';
import { childPointer } from './pointer.js';
import { formatPosition, sortProblems, type ConfigProblem } from './problems.js';
import { suggest } from './suggest.js';

/** `filters.groups[0].properties[1].value`: where in a field a site holds a value, for messages. */
export function dottedPath(field: string, path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((out, step) => (typeof step === 'number' ? `${out}[${step}]` : `${out}.${step}`), field);
}

/**
 * The references by name among an item's declared fields. `pointerOf(field)` is where the
 * field's value is written (its own entry, or an override); `positionOf(pointer)` finds a line.
 */
export function declaredReferences(
  kind: ResourceKind, fields: Record<string, unknown>, pointerOf: (field: string) => string,
  positionOf: (pointer: string) => FilePosition, problems: ConfigProblem[], kinds: Kinds = KINDS,
): DeclaredReference[] {
  const out: DeclaredReference[] = [];
  for (const hit of hitsIn(kind.references ?? [], fields)) {
    const site = hit.site;
    const ref = namedReference(hit.value);
    if (!ref) continue;
    const pointer = hit.path.reduce<string>((p, step) => childPointer(p, step), pointerOf(site.field));
    const position = positionOf(pointer);
    const target = kinds.find((k) => k.name === ref.kind);
    if (ref.kind !== site.kind) {
      const what = target ? `{ ${ref.kind}: … } names ${aLabelOf(target)}` : `"${ref.kind}" is not a kind`;
      problems.push({ position, message: `${dottedPath(site.field, hit.path)}: ${what}, but this place takes ${aLabelOf(kinds.find((k) => k.name === site.kind) ?? kind)}: write { ${site.kind}: NAME }` });
      continue;
    }
    out.push({ field: site.field, path: hit.path, kind: ref.kind, name: ref.name, position });
  }
  return out;
}

/**
 * validate's warnings for references to names no file declares in the item's project: the plan
 * resolves those against the project's live items, which validate cannot see. Where a declared
 * name of that kind is close, it is named: the reference is more likely a typo than a live item.
 */
export function undeclaredReferenceWarnings(state: DesiredState, kinds: Kinds = KINDS): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  const byKind = new Map(kinds.map((k) => [k.name, k]));
  for (const org of state.organizations) {
    // `kind|project` → the declared names (an item declared absent is the plan's error, not a lookup).
    const declared = new Map<string, { keys: Set<string>; names: string[] }>();
    for (const item of org.items) {
      const kind = byKind.get(item.kind);
      if (!kind) continue;
      const scope = `${item.kind}|${item.project ?? ''}`;
      let names = declared.get(scope);
      if (!names) declared.set(scope, (names = { keys: new Set(), names: [] }));
      names.keys.add(kind.matchKey(item.key));
      names.names.push(item.key);
    }
    // One warning per reference as written: a shared definition's reference names every project it reaches.
    const byReference = new Map<string, { ref: DeclaredReference; label: string; lists: string; where: string[]; near?: string }>();
    for (const item of org.items) {
      for (const ref of item.references ?? []) {
        const target = byKind.get(ref.kind);
        const names = declared.get(`${ref.kind}|${item.project ?? ''}`);
        if (!target || names?.keys.has(target.matchKey(ref.name))) continue;
        const id = `${formatPosition(ref.position)}|${ref.kind}|${ref.name}`;
        let found = byReference.get(id);
        if (!found) byReference.set(id, (found = { ref, label: labelOf(target), lists: target.configKey.replace(/_/g, ' '), where: [] }));
        found.where.push(item.project === null ? `organization ${org.id}` : `project ${String(item.project)}`);
        found.near ??= names ? suggest(ref.name, names.names) : undefined;
      }
    }
    for (const { ref, label, lists, where, near } of byReference.values()) {
      const scope = where.length === 1 ? where[0] as string : `${where.slice(0, -1).join(', ')} and ${where[where.length - 1] as string}`;
      warnings.push({
        position: ref.position,
        message: `${label} "${ref.name}" is not declared for ${scope} in these files: plan resolves it against the live ${lists} of ${where.length === 1 ? scope : 'each'}`
          + (near !== undefined ? `; did you mean "${near}"?` : ''),
      });
    }
  }
  return sortProblems(warnings, state.sources);
}

/**
 * References the referred kind refuses (a flag targeting a cohort with behavioral criteria), found
 * offline where the files declare the referred item in the same project: a problem at the
 * reference's line. Where the files say nothing of what decides it (a cohort declared without its
 * filters), the plan asks again with the live item (src/plan/references.ts).
 */
export function refusedReferences(state: DesiredState, kinds: Kinds = KINDS): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const byKind = new Map(kinds.map((k) => [k.name, k]));
  for (const org of state.organizations) {
    const referring = org.items.filter((i) => i.ensure === 'present' && (i.references?.some((r) => byKind.get(r.kind)?.refusesReference) ?? false));
    if (referring.length === 0) continue;
    const declared = new Map<string, DesiredItem>();
    for (const item of org.items) {
      const kind = byKind.get(item.kind);
      if (!kind?.refusesReference || item.ensure !== 'present') continue;
      declared.set(`${item.kind}|${item.project ?? ''}|${kind.matchKey(item.key)}`, item);
      if (item.pin !== undefined) declared.set(`${item.kind}|${item.project ?? ''}|#${String(item.pin)}`, item);
    }
    for (const item of referring) {
      for (const ref of item.references ?? []) {
        const target = byKind.get(ref.kind);
        if (!target?.refusesReference) continue;
        const lookup = (name: string) => declared.get(`${target.name}|${item.project ?? ''}|${target.matchKey(name)}`);
        const referred = lookup(ref.name);
        if (!referred) continue;
        const find = (value: unknown): ReferredItem | undefined => {
          const named = namedReference(value);
          const found = named ? (named.kind === target.name ? lookup(named.name) : undefined)
            : declared.get(`${target.name}|${item.project ?? ''}|#${String(value)}`);
          return found ? { name: found.key, fields: found.fields } : undefined;
        };
        const why = target.refusesReference(item.kind, { name: referred.key, fields: referred.fields }, find);
        if (!why) continue;
        const message = `${dottedPath(ref.field, ref.path)}: ${why}`;
        const key = `${formatPosition(ref.position)}|${message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        problems.push({ position: ref.position, message });
      }
    }
  }
  return problems;
}

/** Items whose fields hold references, for the planner: most items hold none. */
export function referencingItems(items: readonly DesiredItem[]): DesiredItem[] {
  return items.filter((i) => (i.references?.length ?? 0) > 0);
}
