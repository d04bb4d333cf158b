// The loader's public face: files → DesiredState, or a ConfigErrors carrying every problem
// of every file (syntax, schema, interpolation, duplicates) at file:line:col.
import type { FilePosition } from '../errors.js';
import { readConfigFile, resolveConfigPaths, type ReadResult } from './files.js';
import { mapLimit } from '../util/map-limit.js';
import { interpolate, unsetValue } from './interpolate.js';
import { mergeFiles, type LoadedFile } from './merge.js';
import type { DesiredState } from './model.js';
import { parseConfigText } from './config-text.js';
import { expandShared } from './shared.js';
import { ConfigErrors, sortProblems, type ConfigProblem } from './problems.js';
import { checkEntries, checkSchema } from './validate-schema.js';
import { refusedReferences } from './references.js';
import { expandShorthands } from './expand.js';
import { deprecatedFields } from './warnings.js';
import { KINDS } from '../resources/registry.js';
import { registerSecret } from '../util/secrets.js';
import { recordUnset } from './unset.js';
import { splitPointer } from './pointer.js';
import { OVERRIDES } from './shared.js';

export { ConfigErrors, formatConfigErrors, type ConfigProblem } from './problems.js';
export { resolveConfigPaths } from './files.js';

export interface LoadOptions {
  /** Directory relative paths are read from (default: the process's working directory). */
  cwd?: string;
  /** Where the files come from instead of the file system (the files at a git revision). */
  source?: { files: string[]; read(file: string): Promise<ReadResult> };
  /**
   * An unset variable of a write-only secret (a hog function's input) is not an error here: the
   * run decides once it knows whether anything sends it (plan, drift and apply; src/plan/unset.ts).
   */
  deferUnsetWriteOnly?: boolean;
}

/**
 * Whether a pointer is inside a write-only field of an item (`…/hog_functions/0/inputs/token/value`,
 * also in a shared definition's `overrides`): the kinds' writeOnlyFields say which.
 */
function underWriteOnlyField(pointer: string): boolean {
  const seg = splitPointer(pointer);
  for (const kind of KINDS) {
    if (!kind.writeOnlyFields) continue;
    const at = seg.lastIndexOf(kind.configKey);
    if (at === -1) continue;
    let field = at + 2;
    if (seg[field] === OVERRIDES) field += 2;
    if (kind.writeOnlyFields.includes(seg[field] ?? '') && seg.length > field + 1) return true;
  }
  return false;
}

function under(pointer: string, set: ReadonlySet<string>): boolean {
  for (const p of set) if (pointer === p || pointer.startsWith(`${p}/`)) return true;
  return false;
}

/**
 * Reads, interpolates, validates and merges configuration files. `paths` are files or
 * directories (none: ./hogsync.yaml). Throws a HogsyncError for an unreadable path, and a
 * ConfigErrors with every problem found when any file is invalid.
 */
export async function loadConfig(paths: string[], env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Promise<DesiredState> {
  const cwd = options.cwd ?? process.cwd();
  const source = options.source;
  const files = source ? source.files : await resolveConfigPaths(paths, cwd);
  const problems: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  const loaded: LoadedFile[] = [];

  // Files are read a few at a time (a large configuration is hundreds of files), then
  // parsed one by one in order, so problems keep the order of the files.
  const reads = await mapLimit(files, 16, (file) => (source ? source.read(file) : readConfigFile(file, cwd)));
  for (const [index, file] of files.entries()) {
    const read = reads[index] as Awaited<ReturnType<typeof readConfigFile>>;
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    const parsed = parseConfigText(file, read.text);
    problems.push(...parsed.problems);
    if (!parsed.parsed) continue;
    const { data, map, poisoned } = parsed.parsed;
    const position = (pointer: string, key = false): FilePosition =>
      ({ file, ...((key ? map.keys.get(pointer) : undefined) ?? map.values.get(pointer) ?? map.keys.get(pointer) ?? { line: 1, col: 1 }) });

    const interpolated = interpolate(data, env, read.text, options.deferUnsetWriteOnly ? underWriteOnlyField : undefined);
    for (const d of interpolated.deferred ?? []) recordUnset(unsetValue(d.names), d.names, position(d.pointer));
    const failed = new Set(poisoned);
    for (const p of interpolated.problems) {
      problems.push({ position: position(p.pointer), message: p.message });
      failed.add(p.pointer);
    }
    const reported = new Set<string>();
    for (const issue of checkSchema(interpolated.data, interpolated.sources)) {
      // A value already reported (a bad ${…}, a custom tag) would only repeat the problem.
      if (under(issue.pointer, failed)) continue;
      reported.add(issue.pointer);
      problems.push({ position: position(issue.pointer, issue.at === 'key'), message: issue.message });
    }
    // The kinds' own rules (a flag's variants, payloads, operators), where the schema found nothing.
    for (const issue of checkEntries(interpolated.data)) {
      if (under(issue.pointer, failed) || under(issue.pointer, reported)) continue;
      // A literal's warning (a secret written in the file) holds only where no ${env:…} gave the value.
      if (issue.warning === 'literal' && [...interpolated.sources.keys()].some((p) => p === issue.pointer || p.startsWith(`${issue.pointer}/`) || issue.pointer.startsWith(`${p}/`))) continue;
      (issue.warning ? warnings : problems).push({ position: position(issue.pointer, issue.at === 'key'), message: issue.message });
    }
    for (const w of interpolated.warnings) warnings.push({ position: position(w.pointer), message: w.message });
    for (const w of deprecatedFields(interpolated.data)) warnings.push({ position: position(w.pointer, true), message: w.message });
    loaded.push({ file, data: interpolated.data, map, envPointers: new Set(interpolated.sources.keys()) });
  }

  // Shorthands (an insight's `sql_file:`, a tile's insight by name): a file they name is read relative to it.
  problems.push(...await expandShorthands(loaded, (path) => (source ? source.read(path) : readConfigFile(path, cwd))));
  const merged = mergeFiles(loaded);
  problems.push(...merged.problems, ...expandShared(loaded, merged.state));
  // References the referred items refuse (a flag targeting a behavioral cohort), where both are declared.
  if (problems.length === 0) problems.push(...refusedReferences(merged.state));
  if (problems.length > 0) throw new ConfigErrors(sortProblems(problems, files));
  registerSensitiveValues(merged.state.organizations);
  return { ...merged.state, sources: files, ...(warnings.length > 0 ? { warnings: sortProblems(warnings, files) } : {}) };
}

/** Values of sensitive fields are masked in everything printed or written (API messages included). */
function registerSensitiveValues(organizations: DesiredState['organizations']): void {
  // Per kind, its sensitive fields: most kinds have none, and a workspace may declare 20 000 items.
  const sensitive = new Map(KINDS.map((k) => [k.name, Object.keys(k.fields).filter((f) => k.fields[f]?.sensitive)]));
  const secretValuesOf = new Map(KINDS.flatMap((k) => (k.secretValues ? [[k.name, k.secretValues.bind(k)] as const] : [])));
  for (const org of organizations) {
    for (const item of org.items) {
      for (const name of sensitive.get(item.kind) ?? []) if (Object.prototype.hasOwnProperty.call(item.fields, name)) registerSecret(item.fields[name]);
      const values = secretValuesOf.get(item.kind);
      if (values && item.ensure === 'present') registerSecret(values(item.fields));
    }
  }
}
