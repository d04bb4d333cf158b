// Mapping fields a kind shows key by key (a hog function's `inputs`): each key's change is a field
// change of its own (`inputs.url`, `inputs.token`), so one write-only secret among them hides
// nothing of the others. A secret key is shown only as whether it is set, `(sensitive)`, and as
// changed only where the kind's comparison says it is (a create, a resend); a key whose value came
// through ${env:…} is masked on the file's side, as any such field is.
import type { DesiredItem } from '../config/model.js';
import type { LiveRecord, ResourceKind } from '../resources/kind.js';
import { canonicalJson, deepEqual } from './normalize.js';
import { SENSITIVE, type FieldChange } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Whether the file's value of `field.key` came through ${env:…}. The loader names each such key
 * (`inputs.url`); a field marked as a whole without any key named counts every key as such.
 */
function interpolatedKey(item: DesiredItem, field: string, key: string): boolean {
  if (!item.interpolated.includes(field)) return false;
  const prefix = `${field}.`;
  const named = item.interpolated.filter((p) => p.startsWith(prefix));
  return named.length === 0 || named.includes(prefix + key);
}

/** A value as shown: sorted keys, so a diff shows only what differs. */
const shown = (value: unknown): unknown => (value === undefined || value === null ? null : JSON.parse(canonicalJson(value)) as unknown);

function keyChange(kind: ResourceKind, item: DesiredItem, field: string, key: string, secret: boolean, before: unknown, after: unknown): FieldChange {
  const path = `${field}.${key}`;
  if (secret) {
    return { path, before: before === undefined ? null : SENSITIVE, after: after === undefined ? null : SENSITIVE, sensitive: true,
      ...(kind.writeOnlyFields?.includes(field) ? { write_only: true as const } : {}) };
  }
  const masked = interpolatedKey(item, field, key);
  return { path, before: shown(before), after: masked && after !== undefined && after !== null ? SENSITIVE : shown(after), sensitive: masked };
}

/** The keys of a created item's keyed field, each as set. */
export function keyedCreate(kind: ResourceKind, item: DesiredItem, field: string, value: unknown): FieldChange[] | undefined {
  const secretsOf = kind.keyedFields?.[field];
  if (!secretsOf || !isObj(value)) return undefined;
  const secrets = secretsOf(item.fields, undefined);
  return Object.keys(value).map((key) => keyChange(kind, item, field, key, secrets.has(key), undefined, value[key]));
}

/** The keys of an updated item's keyed field that differ, as the kind compares them (secrets as it says). */
export function keyedUpdate(kind: ResourceKind, item: DesiredItem, field: string, declared: unknown, live: unknown, record: LiveRecord): FieldChange[] | undefined {
  const secretsOf = kind.keyedFields?.[field];
  if (!secretsOf) return undefined;
  const together = kind.comparedTogether?.[field];
  const [d, l] = together ? together(declared, live, { declared: item.fields, record }) : [declared, live];
  const normalize = kind.normalizers?.[field] ?? ((v: unknown) => v);
  const dn = normalize(d);
  const ln = normalize(l);
  if (!isObj(dn) || !isObj(ln)) return undefined;
  const secrets = secretsOf(item.fields, record);
  const keys = [...Object.keys(dn), ...Object.keys(ln).filter((k) => !(k in dn))];
  const out: FieldChange[] = [];
  for (const key of keys) {
    if (deepEqual(dn[key], ln[key])) continue;
    out.push(keyChange(kind, item, field, key, secrets.has(key), ln[key], dn[key]));
  }
  return out;
}
