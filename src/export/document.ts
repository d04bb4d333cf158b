// The exporter: live records of one organization → the configuration document that declares
// them, as YAML text a later `plan` finds nothing to change in. Pure and generic over the
// resource kinds: every kind of the registry whose parent is the organization becomes a
// top-level list, every kind whose parent is another kind is nested in that kind's items.
// Values the JSON Schema would reject are left out (with a note) so the file always loads;
// sensitive values become ${env:…} placeholders.
import type { SchemaValidator } from '../config/compiled.js';
import { schemaAt } from '../config/schema-doc.js';
import type { LiveState } from '../plan/live.js';
import { identityOf, isChildOf, keyInScope, labelOf, type KindName, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { addressOf } from '../plan/types.js';
import { canonicalJson } from '../plan/normalize.js';
import { PIN } from '../config/merge.js';
import { ExportNames } from './references.js';
import { shareChildren } from './shared.js';
import { escapeInterpolation, exportedValue } from './values.js';
import { VariableNamer } from './variables.js';
import { holdsCredential } from '../util/secrets.js';
import { renderYaml, type LocatedItem } from './yaml.js';

export interface ExportOptions {
  /** The organization id, lower-cased as the loader keys it. */
  organization: string;
  /** Where the editor modeline on the first line finds the JSON Schema (a path relative to the file). */
  schemaId: string;
  /** The compiled JSON Schema validator the loader uses. */
  validate: SchemaValidator;
  /** Also write fields the schema marks as web-app state (`x-ui-state`). */
  allFields?: boolean;
  /** The kinds to export (default: every registered kind). */
  kinds?: Kinds;
  /** Declare items several projects hold once, at the organization level (`export --shared`). */
  shared?: boolean;
  /** The kinds to write (`--kind`); the parents that hold them are written as references (identity only). Default: every kind read. */
  selected?: Kinds;
  /**
   * Only the items whose address this accepts (`hogsync show`); an item that is not, but holds
   * one that is, is written as its identity alone (a project around its flags).
   */
  only?: (address: string) => boolean;
  /** The comment lines under the modeline (default: export's). */
  header?: readonly string[];
}

export interface ExportVariable { name: string; address: string; field: string }

export interface ExportResult {
  text: string;
  /** The document the text writes (placeholders for secrets, as in the text). */
  document: Record<string, unknown>;
  /** Addresses of the items written (not those written only as the identity of a parent). */
  addresses: string[];
  /** Environment variables the file's placeholders need, in file order. */
  variables: ExportVariable[];
  /** Every value or item left out, one line each (never a value). */
  warnings: string[];
  /** Items exported per kind, in registry order. */
  counts: { kind: KindName; count: number }[];
}

interface Entry {
  kind: ResourceKind;
  /** The live record it was made from. */
  record: LiveRecord;
  address: string;
  /** The key of its address (`12345`, `12345/new-checkout`), for names and notes. */
  key: string;
  /** Identity and managed fields, with the live (unescaped) values. */
  data: Record<string, unknown>;
  children: Group[];
  notes: string[];
  dropped: boolean;
  /** Sensitive values (a field, or a path inside one) and the variables that stand in for them. */
  secrets: Array<{ at: string[]; name: string }>;
  /** A comment above the item that is no warning (an owner, whose level files never set: the kind's exportNote). */
  remark?: string;
  /** Written only as its identity, around items of its children (`only`). */
  container?: boolean;
}

interface Group { kind: ResourceKind; entries: Entry[] }

const label = (entry: Entry) => `${labelOf(entry.kind)} ${entry.key === '' ? '""' : entry.key}`;

/** Numbers by value; anything else by the kind's match key, then as written. */
function byIdentity(kind: ResourceKind): (a: LiveRecord, b: LiveRecord) => number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (a, b) => {
    const x = identityOf(kind, a);
    const y = identityOf(kind, b);
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return cmp(kind.matchKey(kind.displayKey(x)), kind.matchKey(kind.displayKey(y))) || cmp(String(x), String(y));
  };
}

function entriesOf(live: LiveState, kind: ResourceKind, scope: Scope, kinds: Kinds, allFields: boolean, selected: ReadonlySet<string>, names: ExportNames): Entry[] {
  const records = (live.find(kind, scope) ?? []).filter((r) => !kind.isGone(r)).sort(byIdentity(kind));
  // Identities that repeat in the API (idPin kinds): each such item is written with its `id:` pin.
  const repeats = new Map<string, number>();
  if (kind.idPin) for (const r of records) repeats.set(kind.matchKey(kind.displayKey(identityOf(kind, r))), (repeats.get(kind.matchKey(kind.displayKey(identityOf(kind, r)))) ?? 0) + 1);
  const entries = records.map((record) => {
    // A text identity is written in its canonical form (a live `E.Example.com.` as
    // `e.example.com`): the same item, and valid in a file where the API's spelling may not be.
    const raw = identityOf(kind, record);
    const display = kind.displayKey(raw);
    const identity = typeof raw === 'string' ? display : raw;
    const key = keyInScope(scope, display);
    const data: Record<string, unknown> = kind.identityFields ? kind.identityFields(display) : { [kind.identityField]: identity };
    if ((repeats.get(kind.matchKey(display)) ?? 0) > 1) data[PIN] = kind.liveId(record);
    for (const field of selected.has(kind.name) ? Object.keys(kind.fields) : []) {
      // A field the API does not send (an older or newer API version) is not declared at all.
      if (field === kind.identityField || record[field] === undefined) continue;
      // Web-app state (onboarding progress, the dashboard it opens) is not configuration.
      if (kind.fields[field]?.uiState === true && !allFields) continue;
      // A field the API refuses to take (deprecated) would only fail the next apply.
      if (kind.fields[field]?.deprecated !== undefined || kind.fields[field]?.createOnly) continue;
      // A field holding what the API gives a field nobody set says nothing.
      if (kind.unsetValues && field in kind.unsetValues && canonicalJson(kind.unsetValues[field]) === canonicalJson(record[field])) continue;
      // Ids of other items at the kind's reference sites are written by name where it is unique.
      data[field] = names.byName(kind, scope, field, exportedValue(kind, field, record[field]));
    }
    if (kind.exported) {
      const shaped = kind.exported(record, data);
      for (const k of Object.keys(data)) if (!(k in shaped)) delete data[k];
      Object.assign(data, shaped);
    }
    const childScope = (child: ResourceKind): Scope => (kind.projectKind
      ? { organization: scope.organization, project: Number(kind.liveId(record)) }
      : { organization: scope.organization, project: scope.project, parent: { kind: kind.name, key: display, id: kind.liveId(record), ...(child.tagsParent ? { tagged: true as const } : {}) } });
    const children = kinds.filter((c) => isChildOf(c, kind.name))
      .map((child) => ({ kind: child, entries: entriesOf(live, child, childScope(child), kinds, allFields, selected, names) }));
    const remark = kind.exportNote?.(record);
    return {
      kind, record, address: addressOf(kind.name, scope.organization, key), key, data, children, notes: [], dropped: false, secrets: [],
      ...(remark === undefined ? {} : { remark }),
    };
  });
  // A kind not asked for holds the asked-for kinds: written as references, only where it holds some.
  return selected.has(kind.name) ? entries : entries.filter((e) => e.children.some((g) => g.entries.length > 0));
}

/** The document, built from every entry not dropped, and where each entry sits in it. */
function assemble(organization: string, groups: Group[], dataOf: (e: Entry) => Record<string, unknown>): { doc: Record<string, unknown>; items: LocatedItem<Entry>[] } {
  const doc: Record<string, unknown> = { organization };
  const items: LocatedItem<Entry>[] = [];
  const place = (group: Group, at: (string | number)[], into: Record<string, unknown>): void => {
    const kept = group.entries.filter((e) => !e.dropped);
    if (kept.length === 0) return;
    const { kind } = group;
    // Items written another way than a list of mappings: a list of identities (a role's
    // members), or the kind's own form (a project's access rules).
    if (kind.identityList || kind.writeEntries) {
      const written = kind.writeEntries
        ? kind.writeEntries(kept.map(dataOf))
        : { value: kept.map((e) => e.data[kind.identityField]), paths: kept.map((_, i) => [i]) };
      into[kind.configKey] = written.value;
      kept.forEach((item, i) => items.push({ path: [...at, kind.configKey, ...(written.paths[i] ?? [])], item }));
      return;
    }
    into[group.kind.configKey] = kept.map((entry, i) => {
      const path = [...at, group.kind.configKey, i];
      const data = { ...dataOf(entry) };
      items.push({ path, item: entry });
      for (const child of entry.children) place(child, path, data);
      return data;
    });
  };
  for (const group of groups) place(group, [], doc);
  return { doc, items };
}

/** `filters/groups/0/rollout_percentage` → `filters.groups[0].rollout_percentage`. */
function dotted(segments: readonly string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** Leaves out every value (or item) the schema rejects, until the document validates. */
function dropInvalid(organization: string, groups: Group[], validate: SchemaValidator): void {
  for (let round = 0; ; round++) {
    const { doc, items } = assemble(organization, groups, (e) => e.data);
    if (validate(doc)) return;
    let progressed = false;
    for (const error of validate.errors ?? []) {
      const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      // The innermost item the error is in: its path is the longest prefix of the error's.
      const hit = items
        .filter(({ path }) => path.length <= segments.length && path.every((p, i) => String(p) === segments[i]))
        .sort((a, b) => b.path.length - a.path.length)[0];
      if (!hit || hit.item.dropped) continue;
      const entry = hit.item;
      const rest = segments.slice(hit.path.length);
      const field = rest[0];
      // A pattern is said in words where the schema has them (x-expected), as validate says it.
      const expected = error.keyword === 'pattern' ? schemaAt(segments)?.node['x-expected'] : undefined;
      const message = expected ? `must be ${expected}` : error.message ?? 'is not valid';
      if (field !== undefined && field !== entry.kind.identityField && field in entry.kind.fields) {
        if (!(field in entry.data)) continue;
        delete entry.data[field];
        const why = rest.length > 1 ? `${dotted(rest)} ${message}` : message;
        entry.notes.push(`left out ${field}: the live value is not valid in the configuration format (${why})`);
      } else {
        entry.dropped = true;
        const why = rest.length > 0 ? `${dotted(rest)} ${message}` : message;
        entry.notes.push(`left out: the live record is not valid in the configuration format (${why})`);
      }
      progressed = true;
    }
    // Each round removes at least one value, so this ends; anything else is a bug of ours.
    if (!progressed || round > 10_000) {
      const first = validate.errors?.[0];
      throw new Error(`export: the exported document does not validate: ${first?.instancePath ?? ''} ${first?.message ?? ''}`);
    }
  }
}

/** Sets the value at a path of fresh objects (copying each object on the way, never the entry's data). */
function setIn(data: Record<string, unknown>, at: readonly string[], value: unknown): void {
  const [head, ...rest] = at;
  if (head === undefined) return;
  if (rest.length === 0) {
    data[head] = value;
    return;
  }
  const child = data[head];
  if (child === null || typeof child !== 'object') return;
  // Lists too (a credential in a list of headers): copied as lists, indexed by their position.
  const copy = (Array.isArray(child) ? [...child] : { ...(child as Record<string, unknown>) }) as Record<string, unknown>;
  data[head] = copy;
  setIn(copy, rest, value);
}

/** The entries `only` accepts, and the parents of such entries as their identity alone. */
function onlyAccepted(groups: Group[], only: (address: string) => boolean): Group[] {
  return groups.map((group) => ({
    ...group,
    entries: group.entries.flatMap((entry): Entry[] => {
      const children = onlyAccepted(entry.children, only);
      if (only(entry.address)) return [{ ...entry, children }];
      if (!children.some((c) => c.entries.length > 0)) return [];
      const id = entry.kind.identityField;
      return [{ ...entry, children, container: true, data: { [id]: entry.data[id] } }];
    }),
  }));
}

function allEntries(groups: Group[]): Entry[] {
  return groups.flatMap((g) => g.entries.flatMap((e) => [e, ...allEntries(e.children)]));
}

/** Paths below a value of the strings that hold a credential. */
function credentialPaths(value: unknown, at: string[] = []): string[][] {
  if (typeof value === 'string') return holdsCredential(value) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => credentialPaths(v, [...at, String(i)]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => credentialPaths(v, [...at, k]));
  return [];
}

export function exportDocument(live: LiveState, options: ExportOptions): ExportResult {
  const { organization } = options;
  const kinds = options.kinds ?? KINDS;
  const selected = new Set((options.selected ?? kinds.filter((k) => k.exportedByDefault !== false)).map((k) => k.name));
  const names = new ExportNames(live, kinds);
  const all: Group[] = kinds.filter((k) => k.parent === 'organization')
    .map((kind) => ({ kind, entries: entriesOf(live, kind, { organization, project: null }, kinds, options.allFields === true, selected, names) }));
  const groups = options.only ? onlyAccepted(all, options.only) : all;
  dropInvalid(organization, groups, options.validate);
  // Counted as items (one flag per project), before --shared declares some of them once.
  const exported = allEntries(groups);
  const counts = kinds.filter((kind) => selected.has(kind.name)).map((kind) => ({ kind: kind.name, count: exported.filter((e) => e.kind === kind && !e.dropped && !e.container).length }));
  const shared = options.shared
    ? shareChildren(groups, organization, (base, from) => ({ ...base, record: from.record, children: [], secrets: [] }), kinds)
    : [];
  groups.push(...shared);

  const entries = allEntries(groups);
  const namer = new VariableNamer();
  const variables: ExportVariable[] = [];
  for (const entry of entries) {
    if (entry.dropped || entry.container) continue;
    const secretFields = entry.kind.secretFields?.(undefined, entry.record) ?? [];
    for (const [field, spec] of Object.entries(entry.kind.fields)) {
      const value = entry.data[field];
      // Nothing secret to stand in for: null and "" are written as they are.
      if (!(spec.sensitive || secretFields.includes(field)) || value === undefined || value === null || value === '') continue;
      // Secrets inside a field (a flag's payloads) are replaced one by one; the rest stays readable.
      const parts = entry.kind.secretParts?.(field, value, entry.record) ?? [[]];
      for (const part of parts) {
        const name = namer.name(entry.kind.name, entry.key, [field, ...part].join('_'));
        entry.secrets.push({ at: [field, ...part], name });
        variables.push({ name, address: entry.address, field: [field, ...part].join('.') });
      }
    }
    // A credential the API answers in clear in an ordinary field (a webhook's `Authorization:
    // Bearer …` header) is a secret too: a placeholder stands for the whole value, never a mask
    // that applying the file would write back over the working credential.
    for (const field of Object.keys(entry.kind.fields)) {
      if (entry.secrets.some((x) => x.at[0] === field)) continue;
      for (const part of credentialPaths(entry.data[field])) {
        const name = namer.name(entry.kind.name, entry.key, [field, ...part].join('_'));
        entry.secrets.push({ at: [field, ...part], name });
        variables.push({ name, address: entry.address, field: [field, ...part].join('.') });
      }
    }
  }

  const { doc, items } = assemble(organization, groups, (entry) => {
    const data = escapeInterpolation(entry.data) as Record<string, unknown>;
    for (const { at, name } of entry.secrets) setIn(data, at, `\${env:${name}}`);
    return data;
  });
  const dropped = entries.filter((e) => e.dropped).flatMap((e) => e.notes.map((n) => `${label(e)}: ${n}`));
  const text = renderYaml(doc, items, {
    header: [
      `yaml-language-server: $schema=${options.schemaId}`,
      ...(options.header ?? [
        `Organization ${organization}, exported by \`hogsync export\`. Every field written here is managed:`,
        'remove the ones hogsync should leave alone. Nothing is deleted unless `prune` or `ensure: absent` says so.',
      ]),
      ...(shared.length > 0 ? ['Items several projects hold are declared once, at the top level, with `overrides` where a project differs.'] : []),
      ...dropped,
    ],
    notesOf: (entry) => (entry.remark === undefined ? entry.notes : [entry.remark, ...entry.notes]),
    secretsOf: (entry) => entry.secrets,
  });
  const warnings = entries.flatMap((e) => e.notes.map((n) => `${label(e)}: ${n}`));
  const addresses = entries.filter((e) => !e.dropped && !e.container).map((e) => e.address);
  return { text, document: doc, variables, warnings, counts, addresses };
}
