// Shorthands a kind lets a file write, turned into what the engine reads before the files are
// merged: a key naming a file whose text is another key's value (an insight's `sql_file:`, read
// relative to the file that names it: an unreadable path is a problem at its line), then the
// kind's own expansion (`sql:` into the HogQL chart's query).
import { dirname, join } from 'node:path';
import { HogsyncError } from '../errors.js';
import type { ResourceKind } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import type { ReadResult } from './files.js';
import type { LoadedFile } from './merge.js';
import { childPointer } from './pointer.js';
import { lazyPosition } from './position.js';
import type { ConfigProblem } from './problems.js';
import { visitEntries } from './validate-schema.js';

type Obj = Record<string, unknown>;

/** Expands every entry of the kinds with shorthands, in place; returns the problems (files that could not be read). */
export async function expandShorthands(files: readonly LoadedFile[], read: (path: string) => Promise<ReadResult>, kinds: Kinds = KINDS): Promise<ConfigProblem[]> {
  const expanding = kinds.filter((k) => k.textFiles || k.expand);
  if (expanding.length === 0) return [];
  const problems: ConfigProblem[] = [];
  for (const f of files) {
    const entries: Array<{ kind: ResourceKind; entry: Obj; pointer: string }> = [];
    visitEntries(f.data, expanding, (kind, entry, pointer) => entries.push({ kind, entry, pointer }), kinds);
    for (const { kind, entry, pointer } of entries) {
      for (const [key, target] of Object.entries(kind.textFiles ?? {})) {
        const rel = entry[key];
        if (typeof rel !== 'string') continue;
        const at = lazyPosition(f.file, f.map, childPointer(pointer, key), 'value');
        const path = join(dirname(f.file), rel);
        let result: ReadResult;
        try {
          result = await read(path);
        } catch (err) {
          result = { problem: { position: at, message: `${key}: cannot read ${path}: ${err instanceof HogsyncError ? err.message.replace(/^cannot read [^:]*: /, '') : String(err)}` } };
        }
        if ('problem' in result) {
          problems.push({ position: at, message: result.problem.message.startsWith(`${key}:`) ? result.problem.message : `${key}: ${path}: ${result.problem.message}` });
          continue;
        }
        delete entry[key];
        entry[target] = result.text;
      }
      if (kind.expand) {
        const expanded = kind.expand(entry);
        if (expanded !== entry) {
          for (const k of Object.keys(entry)) delete entry[k];
          Object.assign(entry, expanded);
        }
      }
    }
  }
  return problems;
}
