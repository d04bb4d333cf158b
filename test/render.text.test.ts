// The terminal plan: untrusted text cannot drive the terminal, and a one-number change in a
// large value shows as a few lines, not the whole value.
import { describe, expect, it } from 'vitest';
import { renderText } from '../src/render/text.js';
import type { Change, Plan } from '../src/plan/types.js';

function plan(changes: Change[], unmanaged: Plan['unmanaged'] = []): Plan {
  return {
    format_version: '1', kind: 'plan', base_url: 'https://us.posthog.com', sources: ['h.yaml'], fingerprint: `sha256:${'0'.repeat(64)}`,
    summary: { create: 0, update: changes.length, delete: 0, unchanged: 0, unmanaged: unmanaged.length }, changes, unmanaged, warnings: [], managed: [],
  };
}

describe('text plan', () => {
  it('escapes control characters, line breaks and bidi overrides from live names and values', () => {
    const change: Change = {
      address: 'role:org/\u001b[2K\rEVIL\u0007', kind: 'role', organization: 'org', project: null, key: 'x', action: 'update',
      fields: [{ path: 'name', before: 'a\u202eb', after: 'ok', sensitive: false }],
    };
    const out = renderText(plan([change], [{ address: 'role:org/line\nbreak\u009b', kind: 'role', organization: 'org', key: 'y' }]), { color: false });
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(out).toContain('role:org/\\u001b[2K\\rEVIL\\u0007');
    expect(out).toContain('? role:org/line\\nbreak\\u009b');
    expect(out).toContain('name: "a\\u202eb" → "ok"');
  });

  it('says which step each change of an item split in ordered steps is', () => {
    const address = 'experiment:org/1/Checkout';
    const step = (number: number, path: string, before: unknown, after: unknown): Change => ({
      address, kind: 'experiment', organization: 'org', project: 1, key: '1/Checkout', action: 'update', step: { number, of: 2 }, fields: [{ path, before, after, sensitive: false }],
    });
    const out = renderText(plan([step(1, 'conclusion', null, 'won'), step(2, 'archived', false, true)]), { color: false });
    expect(out.split('\n').filter((l) => l.startsWith('  ~ '))).toEqual([`  ~ ${address} (step 1 of 2)`, `  ~ ${address} (step 2 of 2)`]);
    expect(out).toContain('Plan: 0 to create, 2 to update, 0 to delete.');
  });

  it('shows a changed number inside a large value with a few lines of context', () => {
    const groups = (n: number) => Array.from({ length: 260 }, (_, i) => ({ properties: [], rollout_percentage: i === 130 ? n : 1 }));
    const change: Change = {
      address: 'feature_flag:org/1/big', kind: 'feature_flag', organization: 'org', project: 1, key: '1/big', action: 'update',
      // A field no kind describes in its own words: the generic diff.
      fields: [{ path: 'rollback_conditions', before: { groups: groups(38) }, after: { groups: groups(99) }, sensitive: false }],
    };
    const lines = renderText(plan([change]), { color: false }).split('\n');
    expect(lines.length).toBeLessThan(25);
    expect(lines).toContain('        -       "rollout_percentage": 38');
    expect(lines).toContain('        +       "rollout_percentage": 99');
    expect(lines.some((l) => /… \d+ unchanged lines/.test(l))).toBe(true);
  });

  it('says a flag that is off reaches no one, and what its conditions would reach once on', () => {
    const change: Change = {
      address: 'feature_flag:org/1/off', kind: 'feature_flag', organization: 'org', project: 1, key: '1/off', action: 'update',
      fields: [{ path: 'active', before: true, after: false, sensitive: false }],
      blast_radius: { affected: 0, total: 200, inactive: true, when_enabled: 50 },
    };
    const out = renderText(plan([change]), { color: false });
    expect(out).toContain('blast radius: none, the flag is off (once on, the new release conditions would reach 50 of 200 users (25.0%))');
    expect(out).not.toContain('the new release conditions reach');
  });
});
