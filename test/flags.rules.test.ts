// The flag kind's own rules, below the corpus: the API's lists (the schema repeats them), the
// regular-expression and date checks in the API's dialects, what holds a flag (and when a
// dependent flag stops holding one), requests carrying numeric comparisons as strings, and the
// blast radius of a flag that is off.
import { describe, expect, it } from 'vitest';
import { featureFlag, heldFlags } from '../src/resources/feature_flag/kind.js';
import {
  dateProblem, FLAG_OPERATOR_ALIASES, FLAG_OPERATORS, FLAG_PROPERTY_TYPES, normalizeFilters, regexProblem, requestFilters,
} from '../src/resources/feature_flag/rules.js';
import type { HoldView, KindPort, LiveRecord } from '../src/resources/kind.js';
import { schemaDocument } from '../src/resources/schema.js';

describe('the API\'s lists', () => {
  it('are the schema\'s enums, so editors offer what validate accepts', () => {
    const property = schemaDocument().$defs.flag_property?.properties ?? {};
    expect(property.type?.enum).toEqual([...FLAG_PROPERTY_TYPES]);
    expect(property.operator?.enum).toEqual([...FLAG_OPERATORS, ...Object.keys(FLAG_OPERATOR_ALIASES), null]);
  });
});

describe('regular expressions in the API\'s dialect (Python\'s re)', () => {
  it.each([
    '(?i)^admin@', '(?im)^a.b$', '(?P<user>\\w+)@(?P=user)', '(?i:abc)def', 'a++b', '(?>ab|a)c', '(?#comment)abc',
    '(?x) a b # spaces and comments are ignored (', '(a)?(?(1)b|c)', '[^@]+@example\\.com',
  ])('accepts %s', (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });

  it.each(['(abc', 'a**', '[z-a]', '*a', 'a{2,1}', 'a)(?i)'])('refuses %s', (pattern) => {
    expect(regexProblem(pattern)).toEqual(expect.any(String));
  });
});

describe('dates in the API\'s dialect (relative_date.py, then dateutil)', () => {
  it.each(['-7d', '7d', '-24h', '-2w', '-1m', '-1y', '2024-01-31', '2024-01-31T12:00:00Z', '2024-01-31 08:15', 'Jan 31 2024'])('accepts %s', (value) => {
    expect(dateProblem(value)).toBeUndefined();
  });

  it.each([['-7D', /lower case/], ['-7x', /not a unit/], ['-10000d', /fewer than 10000/], ['last week', /not a date/], ['2024-13-01', /no such day/], [20240131, /as text/]])('refuses %s', (value, why) => {
    expect(dateProblem(value)).toMatch(why);
  });
});

describe('requests', () => {
  it('carry numeric comparisons and flag ids as the strings the API requires, and compare equal to what it stores', () => {
    const declared = { groups: [{ properties: [{ key: 'age', type: 'person', operator: 'gt', value: 18 }, { key: 7, type: 'flag', operator: 'flag_evaluates_to', value: true }] }] };
    const sent = requestFilters(declared) as { groups: Array<{ properties: Array<Record<string, unknown>> }> };
    expect(sent.groups[0]?.properties.map((p) => [p.key, p.value])).toEqual([['age', '18'], ['7', true]]);
    expect(normalizeFilters(sent)).toEqual(normalizeFilters(declared));
    const untouched = { groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: 3 }] }] };
    expect(requestFilters(untouched)).toBe(untouched);
  });
});

describe('what holds a flag', () => {
  const flag = (id: number, key: string, extra: Record<string, unknown> = {}): LiveRecord => ({ id, key, active: true, filters: { groups: [{ rollout_percentage: 100 }] }, ...extra });
  const dependsOn = (id: number) => ({ groups: [{ properties: [{ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] });
  const held = (view: Partial<HoldView> & { records: LiveRecord[] }) => {
    const map = heldFlags({ items: [], prune: false, ...view });
    return Object.fromEntries(view.records.map((r) => [r.key as string, (map.get(r) ?? []).map((h) => `${h.kind} ${String(h.name ?? h.id)}`)]));
  };

  it('reads owners from every shape the API answers: lists, a JSON string of ids, mappings, names only where given', () => {
    expect(held({
      records: [
        flag(1, 'ids', { experiment_set: [41, 42], experiment_set_metadata: [{ id: 41, name: 'Checkout test', is_running: true }] }),
        flag(2, 'string', { experiment_set: '[43]' }),
        flag(3, 'mapping', { features: { 0: { id: 'e1', name: 'Beta' } }, surveys: [{ id: 's1', name: 'NPS' }] }),
        flag(4, 'plain', { experiment_set: [], features: [], surveys: [] }),
      ],
    })).toEqual({ ids: ['experiment Checkout test', 'experiment 42'], string: ['experiment 43'], mapping: ['early_access_feature Beta', 'survey NPS'], plain: [] });
  });

  it('counts an active dependent only while it stays active after the plan', () => {
    const records = [flag(1, 'base'), flag(2, 'child', { filters: dependsOn(1) }), flag(3, 'off', { active: false, filters: dependsOn(1) })];
    expect(held({ records }).base).toEqual(['feature_flag child']);
    const item = (key: string, ensure: 'present' | 'absent', fields: Record<string, unknown> = {}) => ({ key, ensure, fields });
    expect(held({ records, items: [item('child', 'absent')] }).base).toEqual([]);
    expect(held({ records, items: [item('child', 'present', { active: false })] }).base).toEqual([]);
    expect(held({ records, items: [item('child', 'present', { filters: { groups: [{ rollout_percentage: 5 }] } })] }).base).toEqual([]);
    expect(held({ records, items: [item('child', 'present', { filters: dependsOn(1) })] }).base).toEqual(['feature_flag child']);
  });

  it('under prune, an undeclared dependent holds only if something holds it in turn', () => {
    const chain = [flag(1, 'base'), flag(2, 'middle', { filters: dependsOn(1) }), flag(3, 'top', { filters: dependsOn(2) })];
    expect(held({ records: chain, prune: true })).toEqual({ base: [], middle: [], top: [] });
    const owned = [flag(1, 'base'), flag(2, 'middle', { filters: dependsOn(1) }), flag(3, 'top', { filters: dependsOn(2), experiment_set: [9] })];
    expect(held({ records: owned, prune: true })).toEqual({ base: ['feature_flag middle'], middle: ['feature_flag top'], top: ['experiment 9'] });
  });
});

describe('the blast radius of a flag that is off', () => {
  const port = (affected: number, total: number): KindPort => ({ request: async <T>() => ({ status: 200, body: { affected, total } as T }), listAll: async () => [] });
  const input = (values: Record<string, unknown>, live?: Record<string, unknown>) => ({
    address: 'feature_flag:ORG/1/f', action: 'update' as const, scope: { organization: 'ORG', project: 1 }, identity: 'f',
    values: { filters: { groups: [{ rollout_percentage: 100 }] }, ...values }, changed: ['filters'], ...(live ? { live } : {}),
  });

  it('reaches no one, and says what it would reach once on', async () => {
    const preview = featureFlag.preview?.bind(featureFlag);
    expect((await preview?.(input({}, { active: false }), port(40, 40)))?.annotations?.blast_radius).toEqual({ affected: 0, total: 40, inactive: true, when_enabled: 40 });
    expect((await preview?.(input({ active: false }), port(40, 40)))?.annotations?.blast_radius).toMatchObject({ affected: 0, inactive: true });
    expect((await preview?.(input({ active: true }, { active: false }), port(40, 40)))?.annotations?.blast_radius).toEqual({ affected: 40, total: 40 });
    expect((await preview?.(input({}, { active: true }), port(12, 40)))?.annotations?.blast_radius).toEqual({ affected: 12, total: 40 });
  });
});
