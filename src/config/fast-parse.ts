// The fast path of the loader. js-yaml reads plain YAML about ten times faster than the yaml
// package (a 3 MB configuration: ~0.1 s against ~1 s) but keeps no source positions and is
// laxer in places. So it answers only for files made of plain mappings, lists and YAML 1.2
// core scalars, which is what configuration files are; a file with anything else (anchors,
// tags, complex keys, numbers YAML 1.2 would read otherwise, any error at all) returns
// undefined and goes through parseYaml, which knows positions and reports every problem.
// The same pass records where each node starts (./fast-positions.ts), for the positions
// messages and plans name.
import { loadJsYaml } from './compiled.js';
import { NodeRecorder, type FastPositions } from './fast-positions.js';
import { KEYS_FOR_THE_FULL_PARSER, MAX_DEPTH } from './parse.js';
import { readBlockYaml } from './block-yaml.js';

/** Numbers as YAML 1.2's core schema writes them (js-yaml also reads 0b…, +0x…, 1_000). */
const CORE_NUMBER = /^(?:[-+]?(?:\d+|\d*\.\d+|\d+\.\d*)(?:[eE][-+]?\d+)?|0o[0-7]+|0x[0-9a-fA-F]+)$/;
/** Explicit keys (`? …`) may be lists or mappings, which js-yaml would turn into strings. */
const EXPLICIT_KEY = /^[ \t-]*\?(?:[ \t]|$)/m;

class Unsure extends Error {}

/** Index of the first character at or after `from` that is not white space. */
function firstVisible(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

export function fastParse(text: string): Record<string, unknown> | undefined {
  return fastRead(text)?.data;
}

/** The data of a plain file, with where its nodes start; undefined when the full parser must read it. */
export function fastRead(text: string): { data: Record<string, unknown>; positions: FastPositions } | undefined {
  const block = readBlockYaml(text);
  if (block) return block;
  // A `?` is rare in configuration: the line test runs only where one is.
  if (text.includes('?') && EXPLICIT_KEY.test(text)) return undefined;
  const { load, CORE_SCHEMA } = loadJsYaml();
  // The recorder keeps the stack of open nodes; the checks below read where each one opened.
  const recorder = new NodeRecorder(text);
  let data: unknown;
  try {
    data = load(text, {
      schema: CORE_SCHEMA,
      listener: (event, state) => {
        if (event === 'open') {
          recorder.onOpen(state);
          return;
        }
        const start = firstVisible(text, recorder.onClose(state));
        if (state.anchor !== null && state.anchor !== undefined) throw new Unsure();
        const first = text[start];
        if (first === '!' || first === '&' || first === '*') throw new Unsure();
        // Values written over several lines are where YAML parsers disagree on indentation:
        // block scalars (| and >) are unambiguous, multi-line quoted, plain or flow ones are not.
        if (state.kind !== 'scalar') {
          if (first === '[' || first === '{') {
            const newline = text.indexOf('\n', start);
            if (newline !== -1 && newline < text.slice(start, state.position).trimEnd().length + start) throw new Unsure();
          }
          return;
        }
        const raw = text.slice(start, state.position).trimEnd();
        if (raw.includes('\n') && first !== '|' && first !== '>') throw new Unsure();
        // A number must be written as YAML 1.2 writes numbers (and -0 stays -0); a plain
        // scalar that YAML 1.2 reads as a number (1e400) must not come back as a string.
        if (typeof state.result === 'number' && (!CORE_NUMBER.test(raw) || (state.result === 0 && raw.startsWith('-')))) throw new Unsure();
        if (typeof state.result === 'string' && CORE_NUMBER.test(raw)) throw new Unsure();
      },
    });
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return isPlain(data, 0) ? { data: data as Record<string, unknown>, positions: recorder.positions(data) } : undefined;
}

/** What parseYaml would refuse or change: deep nesting, dangerous keys, numbers JSON cannot hold. */
function isPlain(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (typeof value === 'number') return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) return value.every((v) => isPlain(v, depth + 1));
  if (typeof value !== 'object') return false;
  for (const key of Object.keys(value)) {
    if (KEYS_FOR_THE_FULL_PARSER.has(key) || key === '[object Object]') return false;
    if (!isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
