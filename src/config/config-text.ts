// The one way configuration text becomes data: the fast path (./fast-parse.ts) when it is
// sure it reads the file exactly as the full parser would, else the full parser
// (./parse.ts), which knows positions and reports every problem. Positions of fast-parsed
// files come from what the fast pass recorded (./fast-positions.ts), and from the full parser,
// once, only where that record is unsure. Whether the fast path stays is a measurement,
// decided here alone.
import { fastRead } from './fast-parse.js';
import type { FastPositions, Lookup } from './fast-positions.js';
import { parseYaml, type ParseResult, type Pos, type SourceMap } from './parse.js';

/** Positions of a fast-parsed file: recorded ones, else the full parser's (parsed once, when first needed). */
function recordedSourceMap(file: string, text: string, recorded: FastPositions): SourceMap {
  let full: SourceMap | undefined;
  const fullMap = (): SourceMap => (full ??= parseYaml(file, text).parsed?.map ?? { values: new Map(), keys: new Map() });
  const answer = (found: Lookup, fallback: () => Pos | undefined): Pos | undefined => (found === 'absent' ? undefined : found === 'unsure' ? fallback() : found);
  return {
    values: { get: (p) => answer(recorded.value(p), () => fullMap().values.get(p)) },
    keys: { get: (p) => answer(recorded.key(p), () => fullMap().keys.get(p)) },
  };
}

export function parseConfigText(file: string, text: string): ParseResult {
  const fast = fastRead(text);
  if (fast) return { parsed: { file, data: fast.data, map: recordedSourceMap(file, text, fast.positions), poisoned: new Set<string>() }, problems: [] };
  return parseYaml(file, text);
}
