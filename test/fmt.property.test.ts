// Properties of `hogsync fmt` over generated configuration files written the many ways people
// write them (keys in any order, 2- or 4-space indents, flow or block collections, comments,
// blank lines, anchors and aliases, quoted and ${env:…} strings): formatting twice gives what
// formatting once gave, and the formatted file plans exactly as the original (the loader reads
// the same desired state from both, positions aside).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FLOW_WIDTH, formatConfigText } from '../src/config/format.js';
import { loadConfig } from '../src/config/load.js';
import type { DesiredState } from '../src/config/model.js';
import { ORG } from './support/constants.js';

/** A YAML value as written: a scalar's text, or a collection in block or flow style. */
type Written =
  | { t: 'scalar'; text: string; comment?: string }
  | { t: 'map'; entries: Array<[string, Written]>; flow: boolean; anchor?: string; blankBefore?: boolean[]; above?: Array<string | undefined>; lines?: boolean }
  | { t: 'seq'; items: Written[]; flow: boolean }
  | { t: 'alias'; name: string };

const scalar = (text: string, comment?: string): Written => ({ t: 'scalar', text, ...(comment ? { comment } : {}) });

function flow(w: Written): string {
  if (w.t === 'scalar') return w.text;
  if (w.t === 'alias') return `*${w.name}`;
  if (w.t === 'seq') return w.items.length === 0 ? '[]' : `[ ${w.items.map(flow).join(', ')} ]`;
  // A flow mapping written over several lines (its lines deeper than any block key here).
  const [open, between, close] = w.lines ? ['{\n' + ' '.repeat(40), `,\n${' '.repeat(40)}`, '\n' + ' '.repeat(30) + '}'] : ['{ ', ', ', ' }'];
  return w.entries.length === 0 ? '{}' : `${w.anchor ? `&${w.anchor} ` : ''}${open}${w.entries.map(([k, v]) => `${k}: ${flow(v)}`).join(between)}${close}`;
}

/** Lines of a block mapping at `indent`, nested mappings `unit` deeper. */
function block(w: Written, indent: number, unit: number): string[] {
  const pad = ' '.repeat(indent);
  if (w.t !== 'map') throw new Error('block() takes a mapping');
  const out: string[] = [];
  w.entries.forEach(([key, value], i) => {
    if (w.blankBefore?.[i] && i > 0) out.push('');
    const above = w.above?.[i];
    if (above) out.push(`${pad}# ${above}`);
    if (value.t === 'scalar') out.push(`${pad}${key}: ${value.text}${value.comment ? `   # ${value.comment}` : ''}`);
    else if (value.t === 'alias' || value.flow || (value.t === 'map' && value.entries.length === 0) || (value.t === 'seq' && value.items.length === 0)) out.push(`${pad}${key}: ${flow(value)}`);
    else if (value.t === 'map') out.push(`${pad}${key}:${value.anchor ? ` &${value.anchor}` : ''}`, ...block(value, indent + unit, unit));
    else {
      out.push(`${pad}${key}:`);
      for (const item of value.items) {
        if (item.t === 'map' && !item.flow && item.entries.length > 0) {
          const lines = block(item, indent + unit + 2, unit);
          out.push(`${pad}${' '.repeat(unit)}- ${lines[0]!.trimStart()}`, ...lines.slice(1));
        } else out.push(`${pad}${' '.repeat(unit)}- ${flow(item)}`);
      }
    }
  });
  return out;
}

const shuffled = <T>(items: T[]) => fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length });
const text = fc.constantFrom('Web app', '"Quoted name"', "'single ''quoted'''", '"${env:APP_NAME}"', 'Signups ($pageview)', '"0.5"', '"$${literal}"');
const comment = fc.option(fc.constantFrom('why this value', 'a note: with a colon'), { nil: undefined });

/** A property filter, its keys in any order. */
const propertyArb = shuffled([['key', scalar('email')], ['type', scalar('person')], ['operator', scalar('icontains')], ['value', scalar('"@example.com"')]] as Array<[string, Written]>)
  .map((entries): Written => ({ t: 'map', flow: true, entries }));
const groupArb = fc.record({ rollout: fc.integer({ min: 0, max: 100 }), order: fc.boolean(), flowStyle: fc.boolean(), properties: fc.array(propertyArb, { maxLength: 2 }) })
  .map(({ rollout, order, flowStyle, properties }): Written => {
    const list: [string, Written] = ['properties', { t: 'seq', items: properties, flow: true }];
    return { t: 'map', flow: flowStyle, entries: order ? [list, ['rollout_percentage', scalar(String(rollout))]] : [['rollout_percentage', scalar(String(rollout))], list] };
  });

const flagArb = (key: string) => fc.record({
  fields: shuffled([
    ['key', fc.constant(scalar(key))],
    ['name', text.map((t) => scalar(t))],
    ['active', fc.boolean().map((b) => scalar(String(b)))],
    ['filters', fc.record({ groups: fc.array(groupArb, { minLength: 1, maxLength: 2 }), flowStyle: fc.boolean(), lines: fc.boolean() })
      .map(({ groups, flowStyle, lines }): Written => ({ t: 'map', flow: flowStyle, lines: flowStyle && lines, entries: [['groups', { t: 'seq', items: groups, flow: flowStyle }]] }))],
  ] as const),
}).chain(({ fields }) => fc.tuple(...fields.map(([k, arb]) => (arb as fc.Arbitrary<Written>).map((v) => [k, v] as [string, Written]))))
  .map((entries): Written => ({ t: 'map', flow: false, entries }));

const projectArb = (id: number) => fc.record({
  order: shuffled(['id', 'name', 'timezone', 'anonymize_ips', 'week_start_day', 'session_recording_sample_rate', 'product_description']),
  keep: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
  name: text,
  timezone: fc.constantFrom('Europe/Berlin', 'UTC'),
  comments: fc.array(comment, { minLength: 7, maxLength: 7 }),
  flags: fc.array(fc.constantFrom('new-checkout', 'beta-banner', 'dark-mode'), { maxLength: 3 }).map((keys) => [...new Set(keys)]),
  blanks: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  above: fc.array(fc.option(fc.constantFrom('about the next key', 'TODO: review'), { nil: undefined }), { minLength: 8, maxLength: 8 }),
}).chain((p) => fc.tuple(...p.flags.map(flagArb)).map((flags) => {
  const values: Record<string, Written> = {
    id: scalar(String(id)), name: scalar(p.name), timezone: scalar(p.timezone), anonymize_ips: scalar('true'),
    week_start_day: scalar('1'), session_recording_sample_rate: scalar('"0.25"'), product_description: scalar('${env:DESCRIPTION}'),
  };
  const entries = p.order.filter((k, i) => k === 'id' || p.keep[i]).map((k, i): [string, Written] => {
    const v = values[k]!;
    return [k, v.t === 'scalar' ? scalar(v.text, p.comments[i]) : v];
  });
  if (flags.length > 0) entries.push(['feature_flags', { t: 'seq', flow: false, items: flags }]);
  return { t: 'map', flow: false, entries, blankBefore: p.blanks, above: p.above } as Written;
}));

const fileArb = fc.record({
  unit: fc.constantFrom(2, 4),
  rootOrder: shuffled(['projects', 'roles', 'prune', 'x-shared']),
  header: fc.boolean(),
  projects: fc.tuple(projectArb(12345), fc.option(projectArb(12346), { nil: undefined })),
  roles: fc.array(fc.record({ name: fc.constantFrom('Engineers', 'Support'), level: fc.constantFrom(21, 37), levelFirst: fc.boolean() }), { maxLength: 2 }),
  useAnchor: fc.boolean(),
  blankBefore: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  above: fc.array(fc.option(fc.constant('a section'), { nil: undefined }), { minLength: 5, maxLength: 5 }),
}).map((f) => {
  const roles = [...new Map(f.roles.map((r) => [r.name, r])).values()];
  const root: Array<[string, Written]> = [['organization', scalar(ORG)]];
  // An anchor comes before its aliases in a valid file: the shared values go just before the roles.
  const order = f.rootOrder.filter((k) => k !== 'x-shared').flatMap((k) => (k === 'roles' ? ['x-shared', k] : [k]));
  for (const key of order) {
    if (key === 'projects') root.push([key, { t: 'seq', flow: false, items: f.projects.filter((p): p is Written => p !== undefined) }]);
    if (key === 'roles' && roles.length > 0) {
      root.push([key, { t: 'seq', flow: false, items: roles.map((r): Written => {
        const level: [string, Written] = ['feature_flags_access_level', f.useAnchor ? { t: 'alias', name: 'level' } : scalar(String(r.level))];
        return { t: 'map', flow: false, entries: r.levelFirst ? [level, ['name', scalar(r.name)]] : [['name', scalar(r.name)], level] };
      }) }]);
    }
    if (key === 'prune') root.push([key, { t: 'map', flow: false, entries: [['roles', scalar('false')], ['proxy_records', scalar('false')]] }]);
    // An anchor the roles use: fmt must keep it before them, whatever the schema's order says.
    if (key === 'x-shared' && f.useAnchor) root.push([key, { t: 'map', flow: false, entries: [['level', { t: 'scalar', text: '&level 37' }]] }]);
  }
  const lines = block({ t: 'map', flow: false, entries: root, blankBefore: f.blankBefore, above: f.above }, 0, f.unit);
  return `${f.header ? '# yaml-language-server: $schema=../schemas/hogsync.schema.json\n# A generated file.\n' : ''}${lines.join('\n')}\n`;
});

const ENV = { APP_NAME: 'Shop', DESCRIPTION: 'described in the environment' };

/** Every mapping with both a key and an operator: the property filters of any kind. */
function propertyFilters(value: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(value)) return value.flatMap(propertyFilters);
  if (value === null || typeof value !== 'object') return [];
  const map = value as Record<string, unknown>;
  return [...('key' in map && 'operator' in map ? [map] : []), ...Object.values(map).flatMap(propertyFilters)];
}

async function desiredOf(source: string): Promise<unknown> {
  const state: DesiredState = await loadConfig(['h.yaml'], ENV, { source: { files: ['h.yaml'], read: async () => ({ text: source }) } });
  // What plans: every item's identity and declared values, prune and aliases; not where they were written.
  return state.organizations.map((o) => ({
    id: o.id, prune: o.prune, aliases: o.aliases,
    items: o.items.map((i) => ({ kind: i.kind, project: i.project, key: i.key, ensure: i.ensure, fields: i.fields, interpolated: [...i.interpolated].sort() })),
  }));
}

describe('hogsync fmt, for generated files', () => {
  it('formats once for good (fmt twice = fmt once), and the formatted file plans exactly as before', async () => {
    await fc.assert(fc.asyncProperty(fileArb, async (source) => {
      const once = formatConfigText('h.yaml', source);
      expect(once.problems, source).toEqual([]);
      const formatted = once.text as string;
      expect(formatConfigText('h.yaml', formatted), formatted).toEqual({ text: formatted, problems: [] });
      expect(await desiredOf(formatted)).toEqual(await desiredOf(source));
      // Two-space indents, keys of a project in the schema's order (id first), comments kept.
      expect(formatted).not.toMatch(/^( {2})* {1}\S/m);
      for (const c of source.match(/# .*$/gm) ?? []) expect(formatted).toContain(c);
      // A flow collection fits on its one line: none is joined into a line wider than FLOW_WIDTH,
      // and none spans lines (one written over several is written in block style).
      for (const line of formatted.split('\n')) expect(line.length, formatted).toBeLessThanOrEqual(FLOW_WIDTH);
      expect(formatted).not.toMatch(/[{[,]\n/);
      // One order of a property filter's keys in every kind: key, type, operator, value.
      for (const filter of propertyFilters(parse(formatted))) expect(Object.keys(filter)).toEqual(['key', 'type', 'operator', 'value']);
    }), { numRuns: 150 });
  }, 60_000);
});
