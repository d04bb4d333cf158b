// The one way configuration text becomes data: the fast path (./fast-parse.ts) when it is
// sure it reads the file exactly as the full parser would, else the full parser
// (./parse.ts), which knows positions and reports every problem. Positions of fast-parsed
// files are found by the full parser too, once, when a message first needs one. Whether the
// fast path stays is a measurement, decided here alone.
import { fastParse } from './fast-parse.js';
import { parseYaml, type ParseResult, type SourceMap } from './parse.js';

/** Positions of a fast-parsed file: found by the full parser, once, when first asked for. */
function lazySourceMap(file: string, text: string): SourceMap {
  let map: SourceMap | undefined;
  const real = (): SourceMap => (map ??= parseYaml(file, text).parsed?.map ?? { values: new Map(), keys: new Map() });
  return { values: { get: (p) => real().values.get(p) }, keys: { get: (p) => real().keys.get(p) } };
}

export function parseConfigText(file: string, text: string): ParseResult {
  const fast = fastParse(text);
  if (fast) return { parsed: { file, data: fast, map: lazySourceMap(file, text), poisoned: new Set<string>() }, problems: [] };
  return parseYaml(file, text);
}
