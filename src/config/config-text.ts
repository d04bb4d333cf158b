// The one way configuration text becomes data: the fast path (./fast-parse.ts) when it is
// sure it reads the file exactly as the full parser would, else the full parser
// (./parse.ts), which knows positions and reports every problem. Positions of fast-parsed
// files are found once, when first needed (a message, a plan's `declared_at`): by a second
// fast pass (./fast-positions.ts), or by the full parser when that pass is unsure. Whether
// the fast path stays is a measurement, decided here alone.
import { fastParse } from './fast-parse.js';
import { fastPositions } from './fast-positions.js';
import { parseYaml, type ParseResult, type SourceMap } from './parse.js';

/** Positions of a fast-parsed file: found once, when first asked for. */
function lazySourceMap(file: string, text: string, data: unknown): SourceMap {
  let map: SourceMap | undefined;
  const real = (): SourceMap => (map ??= fastPositions(text, data) ?? parseYaml(file, text).parsed?.map ?? { values: new Map(), keys: new Map() });
  return { values: { get: (p) => real().values.get(p) }, keys: { get: (p) => real().keys.get(p) } };
}

export function parseConfigText(file: string, text: string): ParseResult {
  const fast = fastParse(text);
  if (fast) return { parsed: { file, data: fast, map: lazySourceMap(file, text, fast), poisoned: new Set<string>() }, problems: [] };
  return parseYaml(file, text);
}
