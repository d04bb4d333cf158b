// Did-you-mean: the edit distance, when a suggestion is close enough, and the suggestions
// users see for misspelt fields and values.
import { describe, expect, it } from 'vitest';
import { ConfigErrors, loadConfig } from '../src/config/load.js';
import { editDistance, suggest } from '../src/config/suggest.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('editDistance', () => {
  it.each([
    ['', '', 0], ['abc', '', 3], ['kitten', 'sitting', 3], ['anonymise_ips', 'anonymize_ips', 1],
    ['Europe/Berln', 'Europe/Berlin', 1], ['teh', 'the', 1], ['ab', 'ba', 1],
  ])('%s → %s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('suggest', () => {
  const fields = ['name', 'timezone', 'anonymize_ips', 'week_start_day', 'feature_flags', 'feature_flags_access_level', 'id'];
  it.each([
    ['anonymise_ips', 'anonymize_ips'],
    ['nmae', 'name'],
    ['time_zone', 'timezone'],
    ['TimeZone', 'timezone'],
    ['week_start', 'week_start_day'],
    ['feature_flags_access', 'feature_flags_access_level'],
    ['featureflags', 'feature_flags'],
  ])('%s → %s', (word, meant) => {
    expect(suggest(word, fields)).toBe(meant);
  });

  it.each(['colour', 'x', 'ids_of_things', 'completely_different'])('nothing close to %s', (word) => {
    expect(suggest(word, fields)).toBeUndefined();
  });
});

describe('suggestions in messages', () => {
  const cases: [string, string][] = [
    ['projects:\n  - id: 1\n    anonymise_ips: true\n', 'unknown field "anonymise_ips" in project; did you mean "anonymize_ips"?'],
    ['projects:\n  - id: 1\n    timezone: Europe/Berln\n', 'timezone: "Europe/Berln" is not a known time zone; did you mean "Europe/Berlin"?'],
    ['projects:\n  - id: 1\n    timezone: america/new_york\n', 'timezone: "america/new_york" is not a known time zone; did you mean "America/New_York"?'],
    ['roles:\n  - name: R\n    ensure: absnet\n', 'ensure: must be "present" or "absent", got string "absnet"; did you mean "absent"?'],
    ['proxy_record:\n  - domain: e.example.com\n', 'unknown field "proxy_record" at the top level; did you mean "proxy_records"?'],
    ['prune:\n  role: true\n', 'unknown field "role" in prune; did you mean "roles"?'],
    ['projects:\n  - id: 1\n    feature_flags:\n      - key: k\n        enabled: true\n', 'unknown field "enabled" in feature flag; did you mean "active"?'],
    ['roles:\n  - name: R\n    feature_flags: []\n', 'unknown field "feature_flags" in role; it belongs at the top level or in project'],
    // A long list of the values the API takes is given whole where no value is near what was written.
    ['projects:\n  - id: 1\n    feature_flags:\n      - key: k\n        filters: { groups: [ { properties: [ { key: x, type: person, operator: zzzzzz, value: "1" } ] } ] }\n',
      'filters.groups[0].properties[0].operator: "zzzzzz" is not a known value for operator (one of: "exact", "is_not", "icontains", "not_icontains", "icontains_multi", "not_icontains_multi", "regex", "not_regex", "gt", "gte", "lt", "lte", "semver_gt", "semver_gte", "semver_lt", "semver_lte", "semver_eq", "semver_neq", "semver_tilde", "semver_caret", "semver_wildcard", "is_set", "is_not_set", "is_date_exact", "is_date_after", "is_date_before", "in", "not_in", "flag_evaluates_to", "min", "max"): the API would refuse the flag ("Unsupported operator for feature flags")'],
    ['projects:\n  - id: 1\n    access:\n      resources:\n        feature_flags: { default: viewer }\n', 'access.resources: key "feature_flags" must be a resource type the API knows, such as feature_flag or dashboard; did you mean "feature_flag"?'],
  ];
  it.each(cases)('%j', async (body, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'hogsync-suggest-'));
    try {
      writeFileSync(join(dir, 'a.yaml'), `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\n${body}`);
      const err = await loadConfig(['a.yaml'], {}, { cwd: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigErrors);
      expect((err as ConfigErrors).problems.map((p) => p.message)).toEqual([message]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
