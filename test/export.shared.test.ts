// export --shared without a network: which flags become one organization-level flag, what
// its shared value and overrides are, and which stay under their project. The e2e test in
// shared.e2e.test.ts proves that such a file plans empty against the sandbox.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { liveStateOf, type LiveCollection } from '../src/plan/live.js';
import { loadSchemaValidator } from '../src/config/compiled.js';
import { exportDocument } from '../src/export/document.js';
import { kindByName } from '../src/resources/registry.js';
import type { LiveRecord } from '../src/resources/kind.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const rollout = (n: number, properties: unknown[] = []) => ({ groups: [{ properties, rollout_percentage: n }] });
const flag = (id: number, key: string, extra: Record<string, unknown> = {}): LiveRecord =>
  ({ id, key, name: key, active: true, filters: rollout(100), ensure_experience_continuity: false, tags: [], deleted: false, ...extra });

function exportShared(flags: Record<number, LiveRecord[]>) {
  const collections: LiveCollection[] = [
    { kind: kindByName('project'), scope: { organization: ORG, project: null }, records: Object.keys(flags).map((id) => ({ id: Number(id), name: `P${id}` })) },
    ...Object.entries(flags).map(([project, records]) => ({ kind: kindByName('feature_flag'), scope: { organization: ORG, project: Number(project) }, records })),
  ];
  const result = exportDocument(liveStateOf(collections), { organization: ORG, schemaId: 'x', validate: loadSchemaValidator(), shared: true });
  return { result, doc: parse(result.text) as { feature_flags?: Record<string, unknown>[]; projects: { id: number; feature_flags?: { key: string }[] }[] } };
}

describe('export --shared', () => {
  it('shares the value most projects hold and overrides the rest, naming projects only when not all', () => {
    const { doc, result } = exportShared({
      1: [flag(11, 'a', { filters: rollout(10) }), flag(12, 'only-here')],
      2: [flag(21, 'a')],
      3: [flag(31, 'a'), flag(32, 'b')],
      4: [flag(41, 'b', { active: false })],
    });
    expect(doc.feature_flags).toEqual([
      { key: 'a', projects: [1, 2, 3], name: 'a', active: true, filters: rollout(100), ensure_experience_continuity: false, tags: [], overrides: { 1: { filters: rollout(10) } } },
      { key: 'b', projects: [3, 4], name: 'b', active: true, filters: rollout(100), ensure_experience_continuity: false, tags: [], overrides: { 4: { active: false } } },
    ]);
    expect(doc.projects.map((p) => [p.id, (p.feature_flags ?? []).map((f) => f.key)])).toEqual([[1, ['only-here']], [2, []], [3, []], [4, []]]);
    // Counts are of flags, one per project, as before.
    expect(result.counts.find((c) => c.kind === 'feature_flag')!.count).toBe(6);
  });

  it('never makes filters holding ids of one project the shared value', () => {
    const cohort = (id: number) => rollout(100, [{ key: 'id', type: 'cohort', value: id }]);
    const { doc } = exportShared({ 1: [flag(11, 'c', { filters: cohort(7) })], 2: [flag(21, 'c', { filters: cohort(7) })] });
    const [shared] = doc.feature_flags!;
    expect(shared).not.toHaveProperty('filters');
    expect(shared!.overrides).toEqual({ 1: { filters: cohort(7) }, 2: { filters: cohort(7) } });
  });

  it('keeps flags under their projects when the projects do not all carry the same fields', () => {
    const older = flag(21, 'd');
    delete older.tags; // an API version that does not send tags
    const { doc } = exportShared({ 1: [flag(11, 'd')], 2: [older] });
    expect(doc.feature_flags ?? []).toEqual([]);
    expect(doc.projects.map((p) => (p.feature_flags ?? []).map((f) => f.key))).toEqual([['d'], ['d']]);
  });
});
