// Cohorts and actions as hogsync compares and checks them, without a network: filters and steps
// compare as the API stores them, validate's offline rules say what the API would do, a flag may
// not target a behavioral cohort, and the pure planner keeps the cohorts that flags and cohorts
// use (reading the flags only where cohorts could go), refuses loops, and orders a flag's change
// before the delete of the cohort it stops targeting.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DesiredItem, DesiredOrganization, DesiredState } from '../src/config/model.js';
import { HogsyncError } from '../src/errors.js';
import { liveStateOf, type LiveCollection } from '../src/plan/live.js';
import { computePlan } from '../src/plan/planner.js';
import { orderPairs } from '../src/plan/change-order.js';
import { dropServerKeys } from '../src/plan/normalize.js';
import type { LiveRecord } from '../src/resources/kind.js';
import { kindByName } from '../src/resources/registry.js';
import { COHORT_PERSON_OPERATORS, flagTargetProblem, normalizeCohortFilters, validateCohortEntry } from '../src/resources/cohort/rules.js';
import { normalizeSteps } from '../src/resources/action/kind.js';
import { plannedReads } from '../src/state/targets.js';
import { ORG } from './support/constants.js';

type Rec = Record<string, unknown>;
const P = 111;
const at = { file: 'h.yaml', line: 3, col: 7 };
const person = (key: string, value: unknown, operator = 'exact') => ({ type: 'person', key, operator, value });
const anyOf = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
const behavioral = { type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day' };

describe('cohort filters compare as the API stores them', () => {
  it('drops computed keys and nulls, takes negation false as absent and integers from numeric strings', () => {
    const declared = anyOf(person('email', '@example.com', 'icontains'), { type: 'cohort', key: 'id', value: 7 }, { ...behavioral, time_value: 30 });
    const live = {
      properties: {
        type: 'OR',
        values: [{
          type: 'AND',
          values: [
            { ...person('email', '@example.com', 'icontains'), negation: false, bytecode: ['_H', 1], conditionHash: 'abc', bytecode_error: null },
            { type: 'cohort', key: 'id', value: '7', negation: false },
            { ...behavioral, time_value: '30', negation: false, explicit_datetime: null },
          ],
        }],
      },
    };
    expect(normalizeCohortFilters(declared)).toEqual(normalizeCohortFilters(live));
    expect(normalizeCohortFilters(anyOf(person('email', 'x')))).not.toEqual(normalizeCohortFilters(anyOf({ ...person('email', 'x'), negation: true })));
  });

  it('leaves computed keys out of what export writes, at any depth', () => {
    const live = { properties: { type: 'OR', values: [{ type: 'AND', values: [{ ...person('a', 1), bytecode: [1], conditionHash: 'h' }] }] } };
    const kept = dropServerKeys(live, undefined, { computed: ['**.bytecode', '**.conditionHash'] });
    expect(kept).toEqual({ properties: { type: 'OR', values: [{ type: 'AND', values: [person('a', 1)] }] } });
    // Nothing to drop: the same value, not a copy.
    const plain = anyOf(person('a', 1));
    expect(dropServerKeys(plain, undefined, { computed: ['**.bytecode'] })).toBe(plain);
  });
});

describe('action steps compare as the API fills them', () => {
  it('every key null where none was given, url_matching contains by default, selector_regex computed, [] properties as none', () => {
    const declared = [{ event: '$pageview', url: '/welcome' }];
    const live = [{
      tag_name: null, text: null, text_matching: null, href: null, href_matching: null, selector: null, url: '/welcome ', url_matching: 'contains',
      event: '$pageview', properties: [], selector_regex: null,
    }];
    expect(normalizeSteps(declared)).toEqual(normalizeSteps(live));
    expect(normalizeSteps([{ event: '$pageview', url: '/welcome', url_matching: 'exact' }])).not.toEqual(normalizeSteps(live));
    expect(dropServerKeys(live, undefined, { computed: ['[].selector_regex'] })).toEqual([{ ...live[0], selector_regex: undefined }].map(({ selector_regex: _s, ...rest }) => rest));
  });
});

describe('validate: what the API would do with a cohort as written', () => {
  const problems = (entry: Record<string, unknown>) => validateCohortEntry(entry).map((p) => `${p.path.join('.')}: ${p.message}`);

  it('takes person operators from the flag kind\'s list, the same the schema enumerates', () => {
    const schema = JSON.parse(readFileSync(new URL('../schemas/hogsync.schema.json', import.meta.url), 'utf8')) as { $defs: Record<string, { properties: Record<string, { enum: unknown[] }> }> };
    expect(schema.$defs.cohort_criterion?.properties.operator?.enum.filter((o) => o !== null)).toEqual([...COHORT_PERSON_OPERATORS]);
    expect(COHORT_PERSON_OPERATORS).not.toContain('in');
    expect(COHORT_PERSON_OPERATORS).not.toContain('flag_evaluates_to');
  });

  it('says what is wrong, and what the API would do', () => {
    expect(problems({ name: 'A', filters: anyOf({ type: 'person', key: 'email', value: 'x' }) })).toEqual([
      'filters.properties.values.0.values.0: a person criterion needs an operator (exact, icontains, is_set, …): the API refuses one without it ("Missing required keys for person filter: operator")',
    ]);
    expect(problems({ name: 'A', filters: anyOf({ ...person('email', 'x'), event_type: 'events' }) })[0]).toMatch(/event_type does not belong here: a person criterion takes type, key, operator, value, negation; the API refuses the cohort/);
    expect(problems({ name: 'A', filters: anyOf({ ...behavioral, value: 'did_something' }) })[0]).toMatch(/"did_something" is not something a person can have done .*calculating the cohort would fail/);
    expect(problems({ name: 'A', filters: anyOf({ ...behavioral, time_value: undefined, time_interval: undefined }) })[0]).toMatch(/performed_event needs a window: time_value and time_interval/);
    expect(problems({ name: 'A', filters: anyOf({ ...behavioral, value: 'performed_event_multiple' }) })[0]).toMatch(/performed_event_multiple needs operator_value/);
    expect(problems({ name: 'A', filters: anyOf({ ...behavioral, event_type: 'actions', key: 'Signed up' }) })[0]).toMatch(/key is the action's id \(or \{ action: NAME \}\)/);
    expect(problems({ name: 'A', filters: anyOf({ type: 'cohort', key: 'id', value: 'Staff' }) })[0]).toMatch(/the cohort's id \(or \{ cohort: NAME \}\)/);
    expect(problems({ name: 'A', filters: anyOf(person('signed_up', 'last week', 'is_date_after')) })[0]).toMatch(/operator is_date_after takes a date .*"Invalid date value"/);
    expect(problems({ name: 'A', filters: anyOf({ ...person('email', 'x'), bytecode: [1] }) })[0]).toMatch(/bytecode: the API's, not the file's/);
    expect(problems({ name: 'A', is_static: true, filters: anyOf(person('email', 'x')) })).toEqual([
      'filters: a static cohort\'s persons are uploaded data, not criteria: it declares a name and description only (the API refuses to change the criteria of a static cohort); remove filters, or is_static',
    ]);
  });

  it('accepts what the API takes: names for cohorts and actions, is_set without a value, nested groups', () => {
    expect(problems({
      name: 'A',
      filters: anyOf(
        person('email', undefined, 'is_set'),
        { type: 'cohort', key: 'id', value: { cohort: 'Staff' } },
        { ...behavioral, event_type: 'actions', key: { action: 'Signed up' } },
        { type: 'OR', values: [person('plan', ['pro', 'team'])] },
      ),
    })).toEqual([]);
  });
});

describe('a flag may not target a cohort with behavioral criteria', () => {
  const cohorts: Record<string, { name: string; fields: Record<string, unknown> }> = {
    Buyers: { name: 'Buyers', fields: { filters: anyOf(behavioral) } },
    Frozen: { name: 'Frozen', fields: { is_static: true, filters: anyOf(behavioral) } },
    Staff: { name: 'Staff', fields: { filters: anyOf(person('email', 'x')) } },
    Wrapper: { name: 'Wrapper', fields: { filters: anyOf({ type: 'cohort', key: 'id', value: { cohort: 'Buyers' } }) } },
  };
  const find = (v: unknown) => cohorts[(v as { cohort: string }).cohort];

  it('says which criteria, also through the cohorts it includes; static cohorts and person properties are fine', () => {
    expect(flagTargetProblem(cohorts.Buyers as never, find)).toMatch(/^cohort "Buyers" has behavioral criteria \(performed_event \$pageview\): the API refuses a flag that targets it \("Cohort 'Buyers' has an event-based condition/);
    expect(flagTargetProblem(cohorts.Wrapper as never, find)).toMatch(/^cohort "Wrapper" includes cohort "Buyers", which has behavioral criteria/);
    expect(flagTargetProblem(cohorts.Frozen as never, find)).toBeUndefined();
    expect(flagTargetProblem(cohorts.Staff as never, find)).toBeUndefined();
  });
});

// ---- the pure planner ----

function item(kind: string, key: string, fields: Record<string, unknown> = {}, extra: Partial<DesiredItem> = {}): DesiredItem {
  return { kind, organization: ORG, project: P, key, ensure: 'present', fields, interpolated: [], position: at, ...extra };
}

function desired(items: DesiredItem[], prune: Record<string, boolean> = {}): DesiredState {
  const org: DesiredOrganization = { id: ORG, items: [{ ...item('project', String(P)), project: null }, ...items], prune };
  return { sources: ['h.yaml'], organizations: [org] };
}

function live(parts: { cohorts?: LiveRecord[]; flags?: LiveRecord[] }) {
  const scope = { organization: ORG, project: P };
  const collections: LiveCollection[] = [{ kind: kindByName('project'), scope: { organization: ORG, project: null }, records: [{ id: P, name: 'Web' }] }];
  if (parts.cohorts) collections.push({ kind: kindByName('cohort'), scope, records: parts.cohorts });
  if (parts.flags) collections.push({ kind: kindByName('feature_flag'), scope, records: parts.flags });
  return liveStateOf(collections);
}

const targeting = (id: number) => ({ groups: [{ properties: [{ key: 'id', type: 'cohort', value: id }], rollout_percentage: 100 }] });
const cohort = (id: number, name: string, filters: unknown = anyOf(person('email', 'x'))): LiveRecord => ({ id, name, filters, deleted: false });
const flag = (id: number, key: string, filters: unknown, active = true): LiveRecord => ({ id, key, active, filters, deleted: false });

describe('the planner and cohorts', () => {
  it('reads a project\'s flags only where cohorts are pruned or declared absent', () => {
    const reads = (d: DesiredState) => plannedReads(d).map((r) => `${r.kind.name}:${String(r.scope.project)}`);
    expect(reads(desired([item('cohort', 'Staff')]))).toEqual(['project:null', 'cohort:111']);
    expect(reads(desired([item('cohort', 'Staff')], { cohorts: true }))).toEqual(['project:null', 'cohort:111', 'feature_flag:111']);
    expect(reads(desired([item('cohort', 'Old', {}, { ensure: 'absent' })]))).toEqual(['project:null', 'cohort:111', 'feature_flag:111']);
  });

  it('never prunes a cohort an active flag or a kept cohort uses, and lists what holds it', () => {
    const d = desired([item('cohort', 'Kept', { filters: anyOf({ type: 'cohort', key: 'id', value: { cohort: 'Inner' } }) })], { cohorts: true });
    const r = computePlan(d, live({
      cohorts: [cohort(1, 'Kept'), cohort(2, 'Targeted'), cohort(3, 'Inner'), cohort(4, 'Loose'), cohort(5, 'Off')],
      flags: [flag(10, 'outside', targeting(2)), flag(11, 'disabled', targeting(5), false)],
    }), { baseUrl: 'https://api.test' });
    expect(r.plan.changes.map((c) => [c.action, c.key])).toEqual([['update', '111/Kept'], ['delete', '111/Loose'], ['delete', '111/Off']]);
    expect(r.plan.unmanaged).toEqual([
      { address: `cohort:${ORG}/111/Targeted`, kind: 'cohort', organization: ORG, key: '111/Targeted', held_by: [{ kind: 'feature_flag', id: 10, name: 'outside' }] },
      { address: `cohort:${ORG}/111/Inner`, kind: 'cohort', organization: ORG, key: '111/Inner', held_by: [{ kind: 'cohort', id: 1, name: 'Kept' }] },
    ]);
  });

  it('refuses ensure: absent on a cohort an active flag uses, naming the flag', () => {
    const d = desired([item('cohort', 'Staff', {}, { ensure: 'absent' })]);
    expect(() => computePlan(d, live({ cohorts: [cohort(1, 'Staff')], flags: [flag(10, 'staff-preview', targeting(1))] }), { baseUrl: 'https://api.test' }))
      .toThrow(/cohort "111\/Staff" has ensure: absent, but it is held by feature flag "staff-preview"/);
  });

  it('orders a flag\'s change that stops targeting a cohort before that cohort\'s delete', () => {
    const d = desired([item('cohort', 'Staff', {}, { ensure: 'absent' }), item('feature_flag', 'staff-preview', { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })]);
    const r = computePlan(d, live({ cohorts: [cohort(1, 'Staff')], flags: [flag(10, 'staff-preview', targeting(1))] }), { baseUrl: 'https://api.test' });
    expect(orderPairs(r)).toContainEqual([`feature_flag:${ORG}/111/staff-preview`, `cohort:${ORG}/111/Staff`]);
  });

  it('refuses cohorts that include each other in a loop, at a declared one\'s line', () => {
    const d = desired([item('cohort', 'A', { filters: anyOf({ type: 'cohort', key: 'id', value: { cohort: 'B' } }) })]);
    const l = live({ cohorts: [cohort(1, 'A'), cohort(2, 'B', anyOf({ type: 'cohort', key: 'id', value: 1 }))] });
    let err: unknown;
    try { computePlan(d, l, { baseUrl: 'https://api.test' }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(HogsyncError);
    expect((err as HogsyncError).message).toMatch(/cohorts of project 111 include each other in a loop: "A" → "B" → "A"; the API refuses it/);
    expect((err as HogsyncError).position).toEqual(at);
  });

  it('refuses a flag that targets a live cohort with behavioral criteria, at the reference', () => {
    const ref = { field: 'filters', path: ['groups', 0, 'properties', 0, 'value'], kind: 'cohort', name: 'Buyers', position: { ...at, line: 9 } };
    const d = desired([item('feature_flag', 'promo', { filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: { cohort: 'Buyers' } }] }] } }, { references: [ref] })]);
    expect(() => computePlan(d, live({ cohorts: [cohort(1, 'Buyers', anyOf(behavioral))], flags: [] }), { baseUrl: 'https://api.test' }))
      .toThrow(/filters.groups\[0\].properties\[0\].value: cohort "Buyers" has behavioral criteria/);
  });
});

describe('export writes references by name where the name is unique, and pins repeated names', () => {
  it('names the one cohort of a name; keeps the id of one whose name repeats, and writes those cohorts with their id:', async () => {
    const { exportDocument } = await import('../src/export/document.js');
    const { loadSchemaValidator } = await import('../src/config/compiled.js');
    const { parse } = await import('yaml');
    const scope = { organization: ORG, project: P };
    const live = liveStateOf([
      { kind: kindByName('project'), scope: { organization: ORG, project: null }, records: [{ id: P, name: 'Web' }] },
      { kind: kindByName('cohort'), scope, records: [cohort(1, 'Staff'), cohort(2, 'Twin'), cohort(3, 'Twin'), { ...cohort(4, 'Gone'), deleted: true }] },
      { kind: kindByName('feature_flag'), scope, records: [flag(10, 'a', targeting(1)), flag(11, 'b', targeting(2)), flag(12, 'c', targeting(4))] },
    ]);
    const result = exportDocument(live, { organization: ORG, schemaId: 'x', validate: loadSchemaValidator(), selected: [kindByName('cohort'), kindByName('feature_flag')] });
    const doc = parse(result.text) as { projects: Array<{ cohorts: Rec[]; feature_flags: Array<{ filters: { groups: Array<{ properties: Rec[] }> } }> }> };
    const values = doc.projects[0]?.feature_flags.map((f) => f.filters.groups[0]?.properties[0]?.value);
    // Staff by name; a repeated name and a deleted cohort stay ids.
    expect(values).toEqual([{ cohort: 'Staff' }, 2, 4]);
    expect(doc.projects[0]?.cohorts.map((c) => [c.name, c.id])).toEqual([['Staff', undefined], ['Twin', 2], ['Twin', 3]]);
  });
});

describe('an id: pin names one project\'s cohort', () => {
  it('is refused in a shared definition and in its overrides, saying where it belongs', async () => {
    const { loadConfig, ConfigErrors } = await import('../src/config/load.js');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hogsync-pin-'));
    try {
      writeFileSync(join(dir, 'h.yaml'), `organization: ${ORG}\nprojects: [ { id: 111 } ]\ncohorts:\n  - name: Staff\n    id: 4\n    overrides: { 111: { id: 5 } }\n`);
      let err: unknown;
      try { await loadConfig([join(dir, 'h.yaml')]); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(ConfigErrors);
      const lines = (err as InstanceType<typeof ConfigErrors>).problems.map((p) => `${p.position.line}:${p.position.col}: ${p.message}`);
      expect(lines).toEqual([
        '5:5: field "id" is not allowed in cohort: an id pins one project\'s cohort (ids differ per project): declare that cohort in its project\'s own cohorts list',
        '6:25: field "id" is not allowed in cohort override: name, id, ensure, renamed_from, projects and overrides belong to the cohort itself, not to one project\'s override',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
