// The planner's own defence against lists that shifted under the reader (issue 12, item 1):
// a live record read twice is one record, two records with one identity are an error, and a
// plan never holds two changes of one item nor a delete of an item the files declare. The
// reader normally catches a shifted list first (see hostile.api); these hold on their own.
import { describe, expect, it } from 'vitest';
import type { DesiredItem, DesiredState } from '../src/config/model.js';
import { HogsyncError } from '../src/errors.js';
import { liveStateOf } from '../src/plan/live.js';
import { computePlan } from '../src/plan/planner.js';
import type { LiveRecord } from '../src/resources/kind.js';
import { kindByName } from '../src/resources/registry.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const at = { file: 'h.yaml', line: 3, col: 7 };

function role(key: string, fields: Record<string, unknown> = {}): DesiredItem {
  return { kind: 'role', organization: ORG, project: null, key, ensure: 'present', fields, interpolated: [], position: at };
}

function pruned(items: DesiredItem[]): DesiredState {
  return { sources: ['h.yaml'], organizations: [{ id: ORG, items, prune: { proxy_records: false, roles: true, feature_flags: false } as Record<string, boolean> }] };
}

const plan = (d: DesiredState, roles: LiveRecord[]) => computePlan(d, liveStateOf([
  { kind: kindByName('project'), scope: { organization: ORG, project: null }, records: [] },
  { kind: kindByName('proxy_record'), scope: { organization: ORG, project: null }, records: [] },
  { kind: kindByName('role'), scope: { organization: ORG, project: null }, records: roles },
]), { baseUrl: 'https://api.test' });

describe('the planner and a live list read twice', () => {
  const engineers = { id: 'r1', name: 'Engineers', feature_flags_access_level: 21 };

  it('a record listed twice is one record: one update, no delete, not unmanaged', () => {
    const r = plan(pruned([role('Engineers', { feature_flags_access_level: 37 })]), [engineers, { ...engineers }]);
    expect(r.plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([`update role:${ORG}/Engineers`]);
    expect(r.plan.unmanaged).toEqual([]);
    expect(r.plan.summary).toEqual({ create: 0, update: 1, delete: 0, unchanged: 0, unmanaged: 0 });
    // The delete-share rule counts the role once.
    expect(r.liveCounts.get(`role|${ORG}`)).toBe(1);
  });

  it('two records with one identity (by the kind\'s match: role names ignore case) are an error', () => {
    const run = () => plan(pruned([role('Engineers')]), [engineers, { id: 'r2', name: 'ENGINEERS', feature_flags_access_level: 21 }]);
    expect(run).toThrow(HogsyncError);
    expect(run).toThrow(`the API lists two roles as role:${ORG}/ENGINEERS (ids r1 and r2)`);
  });
});
