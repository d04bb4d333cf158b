// The pure planner on its own: (desired, live, options) → plan, with no files and no network.
// Each case is a rule a user would notice in a plan.
import { describe, expect, it } from 'vitest';
import type { DesiredItem, DesiredOrganization, DesiredState } from '../src/config/model.js';
import { HogsyncError } from '../src/errors.js';
import { annotate } from '../src/plan/annotate.js';
import { liveStateOf, type LiveCollection } from '../src/plan/live.js';
import { computePlan } from '../src/plan/planner.js';
import { safetyWarnings } from '../src/plan/safety.js';
import type { LiveRecord } from '../src/resources/kind.js';
import { kindByName } from '../src/resources/registry.js';
import { ORG } from './support/constants.js';

const BASE = 'https://api.test';
const at = { file: 'h.yaml', line: 3, col: 7 };

function item(kind: string, key: string, fields: Record<string, unknown> = {}, extra: Partial<DesiredItem> = {}): DesiredItem {
  return { kind, organization: ORG, project: null, key, ensure: 'present', fields, interpolated: [], position: at, ...extra };
}

function desired(items: DesiredItem[], prune: Partial<Record<string, boolean>> = {}): DesiredState {
  const org: DesiredOrganization = { id: ORG, items, prune: { proxy_records: false, roles: false, feature_flags: false, ...prune } as Record<string, boolean> };
  return { sources: ['h.yaml'], organizations: [org] };
}

interface Live { projects?: LiveRecord[]; roles?: LiveRecord[]; proxies?: LiveRecord[]; flags?: Record<number, LiveRecord[]> }

function live(parts: Live) {
  const org = { organization: ORG, project: null };
  const collections: LiveCollection[] = [
    { kind: kindByName('project'), scope: org, records: parts.projects ?? [] },
    { kind: kindByName('proxy_record'), scope: org, records: parts.proxies ?? [] },
    { kind: kindByName('role'), scope: org, records: parts.roles ?? [] },
    ...Object.entries(parts.flags ?? {}).map(([p, records]) => ({ kind: kindByName('feature_flag'), scope: { organization: ORG, project: Number(p) }, records })),
  ];
  return liveStateOf(collections);
}

const plan = (d: DesiredState, l: Live) => computePlan(d, live(l), { baseUrl: BASE });

describe('computePlan', () => {
  it('creates what is missing, updates only the fields that differ, counts what is equal', () => {
    const r = plan(desired([
      item('role', 'Eng', { feature_flags_access_level: 37 }),
      item('role', 'Ops', { feature_flags_access_level: 21 }),
      item('role', 'Data', { feature_flags_access_level: 21 }),
    ]), { roles: [{ id: 'r1', name: 'Eng', feature_flags_access_level: 21 }, { id: 'r2', name: 'Ops', feature_flags_access_level: 21 }] });
    expect(r.plan.changes.map((c) => [c.action, c.address])).toEqual([[`update`, `role:${ORG}/Eng`], ['create', `role:${ORG}/Data`]]);
    expect(r.plan.changes[0]?.fields).toEqual([{ path: 'feature_flags_access_level', before: 21, after: 37, sensitive: false }]);
    expect(r.plan.summary).toEqual({ create: 1, update: 1, delete: 0, unchanged: 1, unmanaged: 0 });
    expect(r.executions.get(`role:${ORG}/Eng`)).toMatchObject({ id: 'r1', identity: 'Eng', values: { feature_flags_access_level: 37 } });
  });

  it('matches role names case-insensitively and updates the name to the declared case', () => {
    const r = plan(desired([item('role', 'ENG')]), { roles: [{ id: 'r1', name: 'Eng' }] });
    expect(r.plan.changes).toHaveLength(1);
    expect(r.plan.changes[0]).toMatchObject({ action: 'update', address: `role:${ORG}/ENG`, fields: [{ path: 'name', before: 'Eng', after: 'ENG' }] });
  });

  it('compares by each field\'s rule: decimals by value, text without surrounding space', () => {
    const r = plan(desired([item('project', '12345', { session_recording_sample_rate: '0.50', name: ' Web ' })]),
      { projects: [{ id: 12345, name: 'Web', session_recording_sample_rate: 0.5 }] });
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.summary.unchanged).toBe(1);
  });

  it('deletes undeclared items only of pruned kinds; other live items of declared kinds are listed as unmanaged', () => {
    const l = { roles: [{ id: 'r1', name: 'Old' }, { id: 'r2', name: 'Keep' }], proxies: [{ id: 'p1', domain: 'a.example.com' }, { id: 'p2', domain: 'keep.example.com' }] };
    const declared = [item('role', 'Keep'), item('proxy_record', 'keep.example.com')];
    const kept = plan(desired(declared), l);
    expect(kept.plan.changes).toEqual([]);
    expect(kept.plan.unmanaged.map((u) => u.address)).toEqual([`proxy_record:${ORG}/a.example.com`, `role:${ORG}/Old`]);
    const pruned = plan(desired(declared, { roles: true }), l);
    expect(pruned.plan.changes.map((c) => [c.action, c.address])).toEqual([['delete', `role:${ORG}/Old`]]);
    expect(pruned.plan.unmanaged.map((u) => u.address)).toEqual([`proxy_record:${ORG}/a.example.com`]);
    expect(pruned.executions.get(`role:${ORG}/Old`)).toMatchObject({ id: 'r1', values: {} });
  });

  it('plans no kind the files do not declare: its live items are neither listed nor pruned', () => {
    const l = { roles: [{ id: 'r1', name: 'Old' }], proxies: [{ id: 'p1', domain: 'a.example.com' }] };
    expect(plan(desired([item('role', 'Old')]), l).plan.unmanaged).toEqual([]);
    // prune owns a kind even where no file declares one of it.
    expect(plan(desired([item('role', 'Old')], { proxy_records: true }), l).plan.changes.map((c) => c.address)).toEqual([`proxy_record:${ORG}/a.example.com`]);
  });

  it('deletes an item declared absent, and plans nothing for an absent item that is not there', () => {
    const r = plan(desired([item('role', 'Old', {}, { ensure: 'absent' }), item('role', 'Never', {}, { ensure: 'absent' })]), { roles: [{ id: 'r1', name: 'old' }] });
    expect(r.plan.changes.map((c) => [c.action, c.address])).toEqual([['delete', `role:${ORG}/Old`]]);
  });

  it('ignores records the kind calls gone (soft-deleted flags)', () => {
    const r = plan(desired([item('project', '1'), item('feature_flag', 'beta', { active: true }, { project: 1 })], { feature_flags: true }), {
      projects: [{ id: 1 }],
      flags: { 1: [{ id: 7, key: 'beta', active: false, deleted: true }, { id: 8, key: 'old', deleted: true }] },
    });
    expect(r.plan.changes.map((c) => [c.action, c.address])).toEqual([['create', `feature_flag:${ORG}/1/beta`]]);
  });

  it('plans flags in each declared, present project, never in an absent one', () => {
    const r = plan(desired([item('project', '1'), item('project', '2', {}, { ensure: 'absent' }), item('feature_flag', 'x', { active: true }, { project: 1 })]), {
      projects: [{ id: 1 }, { id: 2 }],
      flags: { 1: [], 2: [{ id: 9, key: 'y' }] },
    });
    expect(r.plan.changes.map((c) => [c.action, c.address])).toEqual([['delete', `project:${ORG}/2`], ['create', `feature_flag:${ORG}/1/x`]]);
    expect(r.plan.unmanaged).toEqual([]);
  });

  it('refuses an item of a kind that cannot be created, at its position', () => {
    let error: unknown;
    try {
      plan(desired([item('project', '404')]), {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HogsyncError);
    expect((error as HogsyncError).format()).toBe(`h.yaml:3:7: project "404" does not exist in organization ${ORG}: a project declared by id is adopted, never created (declare it by \`name\`, without \`id\`, to create it)`);
  });

  it('never shows a sensitive or interpolated value, but executes with it; the live value beside an interpolated one shows unless it is a secret itself', () => {
    const r = plan(desired([
      item('project', '1', { slack_incoming_webhook: 'https://hooks.example/secret-1', name: 'Team secret' }, { interpolated: ['name'] }),
    ]), { projects: [{ id: 1, slack_incoming_webhook: 'https://hooks.example/old', name: 'x' }] });
    const text = JSON.stringify(r.plan);
    expect(text).not.toContain('secret-1');
    expect(text).not.toContain('Team secret');
    expect(text).not.toContain('hooks.example/old');
    expect(r.plan.changes[0]?.fields).toEqual([
      { path: 'slack_incoming_webhook', before: '(sensitive)', after: '(sensitive)', sensitive: true },
      { path: 'name', before: 'x', after: '(sensitive)', sensitive: true },
    ]);
    expect(r.executions.get(`project:${ORG}/1`)?.values).toEqual({ slack_incoming_webhook: 'https://hooks.example/secret-1', name: 'Team secret' });
  });

  it('fingerprints desired and live state: the same inputs give the same fingerprint, a live edit another', () => {
    const d = desired([item('role', 'Eng', { feature_flags_access_level: 37 })]);
    const a = plan(d, { roles: [{ id: 'r1', name: 'Eng', feature_flags_access_level: 21 }] });
    const b = plan(d, { roles: [{ id: 'r1', name: 'Eng', feature_flags_access_level: 21 }] });
    const c = plan(d, { roles: [{ id: 'r1', name: 'Eng', feature_flags_access_level: 0 }] });
    expect(a.plan.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.plan.fingerprint).toBe(a.plan.fingerprint);
    expect(c.plan.fingerprint).not.toBe(a.plan.fingerprint);
    expect(a.plan.managed.map((m) => m.address)).toEqual([`role:${ORG}/Eng`]);
  });

  it('leaves warnings to annotations: a plan with a risky delete warns only once annotated, as a new plan', () => {
    const r = plan(desired([], {}), { projects: [] });
    expect(r.plan.warnings).toEqual([]);
    const risky = plan(desired([item('project', '1', {}, { ensure: 'absent' })]), { projects: [{ id: 1 }] });
    expect(risky.plan.warnings).toEqual([]);
    const shown = annotate(risky.plan, { changes: new Map([[`project:${ORG}/1`, { blast_radius: { affected: 1, total: 2 } }]]), warnings: safetyWarnings(risky) });
    expect(shown.warnings).toEqual([`apply will refuse unless run with --allow-delete project/1: deleting project 1 (project:${ORG}/1) needs an explicit allow`]);
    expect(shown.changes[0]?.blast_radius).toEqual({ affected: 1, total: 2 });
    expect(risky.plan.warnings).toEqual([]);
    expect(risky.plan.changes[0]?.blast_radius).toBeUndefined();
  });
});
