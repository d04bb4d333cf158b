// One test per normalization rule (src/plan/normalize.ts): values equal under a rule are no change.
import { describe, expect, it } from 'vitest';
import { RULES, sameValue, dropServerKeys, serverKeysOf, canonicalJson, mergedUpdate, withoutNullKeys } from '../src/plan/normalize.js';
import { featureFlag } from '../src/resources/feature_flag/kind.js';
import { project } from '../src/resources/project/kind.js';

describe('normalization rules', () => {
  it('every rule explains itself', () => {
    for (const rule of Object.values(RULES)) expect(rule.explains.length).toBeGreaterThan(10);
  });

  it('plain: null equals absent, other values compare exactly', () => {
    expect(sameValue('plain', null, undefined)).toBe(true);
    expect(sameValue('plain', 'Web app', 'Web app')).toBe(true);
    expect(sameValue('plain', 'Web app', 'web app')).toBe(false);
    expect(sameValue('plain', true, 'true')).toBe(false);
    expect(sameValue('plain', ['a', 'b'], ['b', 'a'])).toBe(false);
  });

  it('plain: text compares without the surrounding whitespace the API trims, also in lists', () => {
    expect(sameValue('plain', 'Checkout flow\n', 'Checkout flow')).toBe(true);
    expect(sameValue('plain', [' https://a.example '], ['https://a.example'])).toBe(true);
    expect(sameValue('plain', 'Checkout  flow', 'Checkout flow')).toBe(false);
  });

  it('decimal: "0.5" = "0.50" = 0.5, but not "0.05"', () => {
    expect(sameValue('decimal', '0.5', '0.50')).toBe(true);
    expect(sameValue('decimal', 0.5, '0.50')).toBe(true);
    expect(sameValue('decimal', '1', '1.00')).toBe(true);
    expect(sameValue('decimal', '.5', '0.50')).toBe(true);
    expect(sameValue('decimal', '0.5', '0.05')).toBe(false);
    expect(sameValue('decimal', null, '0.00')).toBe(false);
    expect(sameValue('decimal', null, undefined)).toBe(true);
  });

  it('integer: 1 = "1", but 1 ≠ "1.5" and 0 ≠ null', () => {
    expect(sameValue('integer', 1, '1')).toBe(true);
    expect(sameValue('integer', '37', 37)).toBe(true);
    expect(sameValue('integer', 1, '1.5')).toBe(false);
    expect(sameValue('integer', 0, null)).toBe(false);
  });

  it('domain: case and a trailing dot do not matter', () => {
    expect(sameValue('domain', 'E.Example.COM.', 'e.example.com')).toBe(true);
    expect(sameValue('domain', 'e.example.com', 'f.example.com')).toBe(false);
  });

  it('untyped: null equals absent, at the top and inside objects, and key order does not matter', () => {
    expect(sameValue('untyped', null, undefined)).toBe(true);
    expect(sameValue('untyped', { a: 1 }, { a: 1, b: null })).toBe(true);
    expect(sameValue('untyped', { a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameValue('untyped', [{ a: 1 }], [{ a: 1, extra: null }])).toBe(true);
    expect(sameValue('untyped', { a: 1 }, { a: 1, b: 0 })).toBe(false);
    expect(sameValue('untyped', { a: [] }, { a: {} })).toBe(false);
  });

  it('server-added defaults inside objects are ignored while empty, unless the file declares them', () => {
    const declared = { groups: [{ properties: [], rollout_percentage: 20 }] };
    const live = { groups: [{ properties: [], rollout_percentage: 20, variant: null, sort_key: 'a1', users_affected: 7 }], payloads: {}, multivariate: null };
    const keys = serverKeysOf(featureFlag, 'filters');
    expect(sameValue('untyped', declared, live, keys)).toBe(true);
    // Declared payloads are compared.
    expect(sameValue('untyped', { ...declared, payloads: { true: '{"a":1}' } }, live, keys)).toBe(false);
    expect(dropServerKeys({ a: 1, payloads: {} }, {}, { defaults: ['payloads'] })).toEqual({ a: 1 });
    expect(dropServerKeys({ g: [{ s: 1, k: 2 }] }, {}, { computed: ['g[].s'] })).toEqual({ g: [{ k: 2 }] });
  });

  it('a default the user filled in is compared: removing variants from the file is a change', () => {
    const declared = { groups: [{ properties: [], rollout_percentage: 100 }] };
    const live = { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, payloads: { a: '1' } };
    expect(sameValue('untyped', declared, live, serverKeysOf(featureFlag, 'filters'))).toBe(false);
    expect(dropServerKeys(live, declared, serverKeysOf(featureFlag, 'filters'))).toEqual(live);
  });

  it('values the server computes are ignored whatever they hold', () => {
    const live = { groups: [{ properties: [], rollout_percentage: 5, sort_key: 'x', users_affected: 12 }] };
    expect(sameValue('untyped', { groups: [{ properties: [], rollout_percentage: 5 }] }, live, serverKeysOf(featureFlag, 'filters'))).toBe(true);
  });

  it('each project field uses the rule its schema annotation names', () => {
    expect(project.fields.session_recording_sample_rate?.compare).toBe('decimal');
    expect(project.fields.week_start_day?.compare).toBe('integer');
    expect(project.fields.test_account_filters?.compare).toBe('untyped');
    expect(project.fields.slack_incoming_webhook?.sensitive).toBe(true);
    expect(featureFlag.fields.filters?.compare).toBe('untyped');
  });

  it('canonical JSON sorts keys so digests do not depend on key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe(canonicalJson({ a: [{ c: 2, d: 1 }], b: 1 }));
  });

  it('merged fields: a null key equals an absent one (down to the merge depth), and a key the file dropped is sent as null', () => {
    // top: survey_config, modifiers (and a flag's filters)
    expect(sameValue('untyped', { a: 1 }, { a: 1, b: null }, {}, 'top')).toBe(true);
    expect(sameValue('plain', { a: 1 }, { a: 1, b: null }, {}, 'top')).toBe(true);
    expect(sameValue('plain', { a: 1 }, { a: 1, b: 2 }, {}, 'top')).toBe(false);
    expect(mergedUpdate({ a: 1 }, { a: 1, b: 2, c: null }, 'top')).toEqual({ a: 1, b: null });
    expect(mergedUpdate({ a: { x: 1 } }, { a: { x: 1, y: 2 } }, 'top')).toEqual({ a: { x: 1 } });
    // nested: session_replay_config merges the keys of its objects too
    expect(mergedUpdate({ ai_config: { opt_in: true } }, { record_canvas: true, ai_config: { opt_in: false, preferred_events: ['$pageview'] } }, 'nested'))
      .toEqual({ ai_config: { opt_in: true, preferred_events: null }, record_canvas: null });
    expect(withoutNullKeys({ a: null, b: { c: null, d: 1 } }, 'nested')).toEqual({ b: { d: 1 } });
    expect(withoutNullKeys({ a: null, b: { c: null, d: 1 } }, 'top')).toEqual({ b: { c: null, d: 1 } });
    // Not an object: replaced whole, as any value.
    expect(mergedUpdate(null, { a: 1 }, 'top')).toBeNull();
  });

  it('merged fields come from the schema (x-merge): the project fields the API merges', () => {
    expect(project.fields.session_replay_config?.merge).toBe('nested');
    expect(project.fields.survey_config?.merge).toBe('top');
    expect(project.fields.modifiers?.merge).toBe('top');
    expect(project.fields.timezone?.merge).toBeUndefined();
  });
});

