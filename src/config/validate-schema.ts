// Runs the schema validator that scripts/bundle-config-loader.js compiled ahead of time (so no
// run pays for compiling the schema) and explains its errors; then the kinds' own offline rules
// (a kind's `validateEntry`: what a JSON Schema cannot say, such as a flag's variants summing to
// 100), on every entry of such a kind in one file: nested in its parents (a project's
// feature_flags), at the top level (shared definitions) and in each project's `overrides` of a
// shared one. Only kinds with the hook are walked, once.
import type { ResourceKind } from '../resources/kind.js';
import { KINDS, parentKinds, type Kinds } from '../resources/registry.js';
import { loadSchemaValidator } from './compiled.js';
import { childPointer, readablePath, splitPointer } from './pointer.js';
import { schemaAt } from './schema-doc.js';
import { explainErrors, type SchemaIssue } from './schema-messages.js';
import { OVERRIDES } from './shared.js';

export type { SchemaIssue } from './schema-messages.js';

/**
 * Every schema problem of one file's (interpolated) data. `envSources` maps pointers of
 * interpolated strings to their variables: such values, like x-sensitive fields, are never shown.
 */
export function checkSchema(data: unknown, envSources: ReadonlyMap<string, readonly string[]>): SchemaIssue[] {
  const validate = loadSchemaValidator();
  if (validate(data)) return [];
  const secret = (pointer: string): string | undefined => {
    const names = envSources.get(pointer);
    if (names) return `the value of ${names.map((n) => `\${env:${n}}`).join(' and ')}`;
    if (schemaAt(splitPointer(pointer))?.node['x-sensitive'] === true) return 'a sensitive value (not shown)';
    return undefined;
  };
  return explainErrors(validate.errors ?? [], { data, secret });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Visits every entry of the given kinds in one file's data, with its JSON Pointer: nested in its
 * parents (a project's feature_flags), at the top level (shared definitions) and each project's
 * `overrides` of a shared one.
 */
export function visitEntries(data: unknown, kinds: readonly ResourceKind[], visit: (kind: ResourceKind, entry: Obj, pointer: string) => void, all: Kinds = KINDS): void {
  if (kinds.length === 0 || !isObj(data)) return;
  const run = (kind: ResourceKind, entry: unknown, pointer: string): void => {
    if (isObj(entry)) visit(kind, entry, pointer);
  };
  const list = (value: unknown, pointer: string, each: (entry: unknown, at: string) => void): void => {
    if (Array.isArray(value)) value.forEach((entry, i) => each(entry, childPointer(pointer, i)));
  };
  // The entries of a kind's parents, at any depth (an insight's alerts: in projects' insights, and in top-level insights).
  const entriesOf = (kind: ResourceKind): Array<{ entry: Obj; at: string }> => {
    const out: Array<{ entry: Obj; at: string }> = [];
    list(data[kind.configKey], childPointer('', kind.configKey), (entry, at) => { if (isObj(entry)) out.push({ entry, at }); });
    for (const parent of parentKinds(kind, all)) {
      for (const p of entriesOf(parent)) list(p.entry[kind.configKey], childPointer(p.at, kind.configKey), (entry, at) => { if (isObj(entry)) out.push({ entry, at }); });
    }
    return out;
  };
  for (const kind of kinds) {
    for (const parent of parentKinds(kind, all)) {
      for (const p of entriesOf(parent)) list(p.entry[kind.configKey], childPointer(p.at, kind.configKey), (entry, e) => run(kind, entry, e));
    }
    // Top-level entries (the kind's own list, or shared definitions of a child kind) and their overrides.
    list(data[kind.configKey], childPointer('', kind.configKey), (entry, at) => {
      run(kind, entry, at);
      const overrides = isObj(entry) ? entry[OVERRIDES] : undefined;
      if (isObj(overrides)) for (const [ref, override] of Object.entries(overrides)) run(kind, override, childPointer(childPointer(at, OVERRIDES), ref));
    });
  }
}

/** Problems the kinds' rules find in one file's (interpolated) data, at JSON Pointers into it. */
export function checkEntries(data: unknown, kinds: Kinds = KINDS): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  visitEntries(data, kinds.filter((k) => k.validateEntry), (kind, entry, pointer) => {
    for (const problem of kind.validateEntry?.(entry) ?? []) {
      let at = pointer;
      for (const segment of problem.path) at = childPointer(at, segment);
      // Said as validate says schema problems: the field's path within its item, then what is wrong.
      const label = readablePath(problem.path.map(String));
      issues.push({ pointer: at, at: problem.at ?? 'value', message: `${label}: ${problem.message}`, ...(problem.warning ? { warning: problem.warning } : {}) });
    }
  }, kinds);
  return issues;
}
