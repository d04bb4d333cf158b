// Flag release conditions in the web app's words: the lines a reviewer reads for each kind of
// change of `filters`, and the JSON part for what cannot be described.
import { describe, expect, it } from 'vitest';
import { describeFlagFilters, describeProperty, type FlagLine } from '../src/resources/feature_flag/describe.js';

const country = { key: 'country', type: 'person', operator: 'exact', value: ['DE', 'FR'] };
const email = { key: 'email', type: 'person', operator: 'icontains', value: '@example.com' };
const set = (properties: unknown[], rollout: number | null, extra: Record<string, unknown> = {}) => ({ properties, rollout_percentage: rollout, ...extra });

/** Lines as `sign text` (JSON parts as `json label`), the way a test reads them best. */
function lines(before: unknown, after: unknown, sensitivePayloads = false): string[] {
  return describeFlagFilters(before, after, { sensitivePayloads }).map((l: FlagLine) => (l.kind === 'text' ? `${l.sign} ${l.text}` : `json ${l.label}`));
}

describe('properties in the web app\'s words', () => {
  it.each([
    [country, 'country is one of DE, FR'],
    [{ ...country, value: ['DE'] }, 'country equals DE'],
    [{ ...country, value: 'DE' }, 'country equals DE'],
    [{ ...country, operator: 'is_not', value: ['DE', 'FR'] }, 'country is not one of DE, FR'],
    [email, 'email contains @example.com'],
    [{ key: 'email', type: 'person', operator: 'not_icontains', value: 'spam' }, "email doesn't contain spam"],
    [{ key: 'email', type: 'person', operator: 'regex', value: '^a.*' }, 'email matches regex ^a.*'],
    [{ key: 'beta', type: 'person', operator: 'is_set', value: 'is_set' }, 'beta is set'],
    [{ key: 'beta', type: 'person', operator: 'is_not_set' }, 'beta is not set'],
    [{ key: 'age', type: 'person', operator: 'gt', value: 30 }, 'age greater than 30'],
    [{ key: 'age', type: 'person', operator: 'lte', value: '65' }, 'age less than or equal 65'],
    [{ key: 'signed_up', type: 'person', operator: 'is_date_before', value: '2026-01-01' }, 'signed_up before 2026-01-01'],
    [{ key: 'app_version', type: 'person', operator: 'semver_gte', value: '2.1.0' }, 'app_version greater than or equal (semver) 2.1.0'],
    [{ key: 'id', type: 'cohort', operator: 'in', value: 42, cohort_name: 'Power users' }, 'user in cohort Power users (42)'],
    [{ key: 'id', type: 'cohort', value: 42 }, 'user in cohort 42'],
    [{ key: 'id', type: 'cohort', operator: 'not_in', value: 7 }, 'user not in cohort 7'],
    [{ key: '12', type: 'flag', operator: 'flag_evaluates_to', value: true }, 'flag 12 evaluates to true'],
    [{ key: 'industry', type: 'group', group_type_index: 0, operator: 'exact', value: ['tech'] }, 'industry (group type 0) equals tech'],
    [{ key: '$browser', type: 'event', operator: 'exact', value: ['Chrome', 'Firefox'] }, '$browser (event) is one of Chrome, Firefox'],
  ])('%j reads "%s"', (property, text) => {
    expect(describeProperty(property)).toBe(text);
  });

  it.each([
    [{ key: 'x', type: 'person', operator: 'between', value: [1, 2] }],
    [{ key: 'x', type: 'person', operator: 'exact', value: { nested: true } }],
    [{ key: 'x', type: 'person', operator: 'exact', value: ['a'], negation: true }],
    [{ key: 'x', type: 'person', operator: 'exact', value: ['a'], surprise: 1 }],
    [{ type: 'person', operator: 'exact', value: ['a'] }],
  ])('cannot describe %j', (property) => {
    expect(describeProperty(property)).toBeUndefined();
  });
});

describe('describeFlagFilters', () => {
  it('reads the README example: rollout 50% → 20%, the country condition removed', () => {
    expect(lines({ groups: [set([country], 50)] }, { groups: [set([], 20)] })).toEqual([
      '~ condition set 1: rollout 50% → 20%',
      '- condition set 1: country is one of DE, FR',
    ]);
  });

  it('pairs a removed and an added property of the same key as a change; others as added and removed', () => {
    const before = { groups: [set([country, { key: 'beta_tester', type: 'person', operator: 'is_set' }], 100)] };
    const after = { groups: [set([{ ...country, value: ['DE', 'FR', 'NL'] }, email], 100)] };
    expect(lines(before, after)).toEqual([
      '- condition set 1: beta_tester is set',
      '~ condition set 1: country is one of DE, FR → country is one of DE, FR, NL',
      '+ condition set 1: email contains @example.com',
    ]);
  });

  it('treats rollouts the API returns as 20.0 and properties in another key order as unchanged, and ignores cohort_name', () => {
    const cohort = { key: 'id', type: 'cohort', value: 3 };
    expect(lines({ groups: [set([cohort], 20)] }, { groups: [{ rollout_percentage: 20.0, properties: [{ value: 3, type: 'cohort', key: 'id', cohort_name: 'X' }] }] })).toEqual([]);
  });

  it('says a set was added or removed in one line, and anchors unchanged sets so the rest do not shift', () => {
    const a = set([country], 50);
    const b = set([email], 100);
    const c = set([], 10, { variant: 'test' });
    expect(lines({ groups: [a, b, c] }, { groups: [a, c] })).toEqual(['- condition set 2: email contains @example.com, rollout 100%']);
    expect(lines({ groups: [a] }, { groups: [a, c, set([email, country], null)] })).toEqual([
      '+ condition set 2: everyone, rollout 10%, variant test',
      '+ condition set 3: email contains @example.com and country is one of DE, FR, rollout 100% (unset)',
    ]);
    // A changed set after a removed one keeps its own label and says where it was.
    expect(lines({ groups: [a, b, c] }, { groups: [b, set([], 15, { variant: 'test' })] })).toEqual([
      '- condition set 1: country is one of DE, FR, rollout 50%',
      '~ condition set 2 (was 3): rollout 10% → 15%',
    ]);
  });

  it('says a reordering, not every set changed', () => {
    const a = set([country], 50);
    const b = set([email], 100);
    const c = set([], 10);
    expect(lines({ groups: [a, b, c] }, { groups: [b, a, c] })).toEqual(['~ condition sets reordered: 1, 2, 3 → 2, 1, 3']);
  });

  it('names a variant override and a description change', () => {
    expect(lines({ groups: [set([], 100)] }, { groups: [set([], 100, { variant: 'test', description: 'Internal' })] })).toEqual([
      '~ condition set 1: variant override none → test',
      '~ condition set 1: description null → "Internal"',
    ]);
  });

  it('reads the variant split: changed, added, removed, renamed, reordered', () => {
    const mv = (variants: unknown[]) => ({ groups: [set([], 100)], multivariate: { variants } });
    const before = mv([{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 30 }, { key: 'old', rollout_percentage: 20 }]);
    const after = mv([{ key: 'control', rollout_percentage: 40 }, { key: 'test', name: 'Test arm', rollout_percentage: 30 }, { key: 'test-b', rollout_percentage: 30 }]);
    expect(lines(before, after)).toEqual([
      '- variant old 20%',
      '~ variant control 50% → 40%',
      '~ variant test name null → "Test arm"',
      '+ variant test-b 30%',
    ]);
    const reordered = mv([{ key: 'test', rollout_percentage: 30 }, { key: 'control', rollout_percentage: 50 }, { key: 'old', rollout_percentage: 20 }]);
    expect(lines(before, reordered)).toEqual(['~ variants reordered: control, test, old → test, control, old (the order assigns users to variants)']);
    expect(lines({ groups: [] }, mv([{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }]))).toEqual([
      '+ condition set 1: everyone, rollout 100%', '+ variant a 50%', '+ variant b 50%',
    ]);
  });

  it('reads payloads per variant, parsing the JSON strings the API stores; never shows sensitive ones', () => {
    const before = { groups: [], payloads: { control: '{"color": "blue"}', test: '{"color": "red"}' } };
    const after = { groups: [], payloads: { control: '{"color":"green"}', 'test-b': '42' } };
    expect(lines(before, after)).toEqual([
      '~ payload for control {"color":"blue"} → {"color":"green"}',
      '- payload for test {"color":"red"}',
      '+ payload for test-b 42',
    ]);
    const secret = lines({ groups: [], payloads: { true: '"sk_live_1"' } }, { groups: [], payloads: { true: '"sk_live_2"' } }, true);
    expect(secret).toEqual(['~ payload changed (sensitive: value not shown)']);
    expect(JSON.stringify(describeFlagFilters({ payloads: { true: 'sk_live_1' } }, { payloads: {} }, { sensitivePayloads: true }))).not.toContain('sk_live');
  });

  it('says the flag-level aggregation once, not per set', () => {
    const before = { aggregation_group_type_index: null, groups: [set([], 100, { aggregation_group_type_index: null })] };
    const after = { aggregation_group_type_index: 1, groups: [set([], 100, { aggregation_group_type_index: 1 })] };
    expect(lines(before, after)).toEqual(['~ match by users → group type 1']);
  });

  it('falls back to the JSON of the part it cannot describe, and describes the rest', () => {
    const odd = { key: 'x', type: 'person', operator: 'between', value: [1, 2] };
    const result = describeFlagFilters(
      { groups: [set([country], 50)], holdout: { id: 1 } },
      { groups: [set([odd], 20, { sort_key: 'abc' })], holdout: { id: 2 } },
    );
    expect(result).toEqual([
      { kind: 'text', sign: '~', text: 'condition set 1: rollout 50% → 20%' },
      { kind: 'text', sign: '-', text: 'condition set 1: country is one of DE, FR' },
      { kind: 'json', label: 'condition set 1: property added', before: null, after: odd },
      { kind: 'json', label: 'condition set 1: sort_key', before: null, after: 'abc' },
      { kind: 'json', label: 'holdout', before: { id: 1 }, after: { id: 2 } },
    ]);
    expect(describeFlagFilters({ groups: 'everyone' }, { groups: [] })).toEqual([{ kind: 'json', label: 'condition sets', before: 'everyone', after: [] }]);
    expect(describeFlagFilters({ groups: [] }, { groups: [], multivariate: { variants: 'a,b' } })).toEqual([
      { kind: 'json', label: 'variants', before: null, after: { variants: 'a,b' } },
    ]);
  });

  it('never answers nothing for a change: every changed part shows up', () => {
    const shapes: unknown[] = [
      { groups: [set([country], 50)] },
      { groups: [set([country], 50)], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } },
      { groups: [set([{ key: 'x', operator: 'weird', value: 1 }], 50)] },
      { groups: [set([], 50, { whatever: [1] })], payloads: { true: '1' } },
      { groups: [], aggregation_group_type_index: 2 },
      { groups: [set([email], 100), set([country], 50)] },
    ];
    for (const a of shapes) for (const b of shapes) if (a !== b) expect(describeFlagFilters(a, b).length, JSON.stringify([a, b])).toBeGreaterThan(0);
  });
});
