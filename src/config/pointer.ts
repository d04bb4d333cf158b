// JSON Pointers (RFC 6901), the addresses ajv reports errors at; the loader keys source
// positions, interpolation records and error locations by them.

export function escapeSegment(segment: string): string {
  // Most segments need no escape; pointers are built for every item of large workspaces.
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function childPointer(parent: string, segment: string | number): string {
  return `${parent}/${escapeSegment(String(segment))}`;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A readable path for messages: `projects[0].feature_flags[1].filters`. */
export function readablePath(segments: readonly string[]): string {
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}
