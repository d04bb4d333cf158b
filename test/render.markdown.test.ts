// The Markdown plan as a pull-request comment: within GitHub's size limit however large the
// plan, warnings always kept, and values that could break the Markdown kept inert.
import { describe, expect, it } from 'vitest';
import { renderMarkdown, MARKDOWN_MAX_CHARS } from '../src/render/markdown.js';
import type { Change, Plan } from '../src/plan/types.js';

function plan(changes: Change[], extra: Partial<Plan> = {}): Plan {
  return {
    format_version: '1', kind: 'plan', base_url: 'https://us.posthog.com', sources: ['h.yaml'], fingerprint: `sha256:${'0'.repeat(64)}`,
    summary: { create: 0, update: changes.length, delete: 0, unchanged: 0, unmanaged: 0 }, changes, unmanaged: [], warnings: [], managed: [], ...extra,
  };
}

const update = (i: number, before: unknown = 10, after: unknown = 50): Change => ({
  address: `feature_flag:org/12345/flag-${i}`, kind: 'feature_flag', organization: 'org', project: 12345, key: `12345/flag-${i}`, action: 'update',
  // A field no kind describes in its own words: the generic diff.
  fields: [{ path: 'rollback_conditions', before: { groups: [{ properties: [], rollout_percentage: before }] }, after: { groups: [{ properties: [], rollout_percentage: after }] }, sensitive: false }],
});

describe('markdown plan', () => {
  it('stays under the comment size limit, names what it can, and keeps the warnings', () => {
    const changes = Array.from({ length: 2000 }, (_, i) => update(i));
    const md = renderMarkdown(plan(changes, { warnings: ['apply will refuse unless run with --allow-delete project/777: deleting project 777'] }));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(md).toContain('Plan: 0 to create, 2000 to update, 0 to delete.');
    expect(md).toContain('--allow-delete project/777');
    const named = md.split('(diff not shown)').length - 1;
    expect(named).toBeGreaterThan(400);
    expect(md).toContain(`> 2000 changes shown without a diff: this comment would pass 60000 characters; ${2000 - named} more changes are not even named.`);
  });

  it('names every change of a long plan, and shows as many diffs in full as fit besides', () => {
    const changes = Array.from({ length: 300 }, (_, i) => update(i));
    const md = renderMarkdown(plan(changes));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    const shown = md.split('<details>').length - 1;
    const named = md.split('(diff not shown)').length - 1;
    expect(shown).toBeGreaterThan(10);
    expect(shown + named).toBe(300);
    expect(md).toContain(`> ${300 - shown} changes shown without a diff: this comment would pass 60000 characters. The text and JSON plans show every change in full.`);
  });

  it('names a change whose diff alone is too big for the comment', () => {
    const huge = update(1, 'x'.repeat(70_000), 'y');
    const md = renderMarkdown(plan([huge, update(2)]));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(md).toContain('<b>feature_flag:org/12345/flag-1</b> (diff not shown)');
    expect(md).toContain('<b>feature_flag:org/12345/flag-2</b>');
    expect(md).toContain('> 1 change shown without a diff');
  });

  it('keeps control characters and line breaks of live names out of the comment', () => {
    const evil = update(1);
    evil.address = 'role:org/nl\n```\n\n# INJECTED\u001b[2K';
    const md = renderMarkdown(plan([evil]));
    expect(md.split('\n').some((line) => line.startsWith('# INJECTED'))).toBe(false);
    expect(md).toContain('nl\\n```\\n\\n# INJECTED\\u001b[2K');
  });

  it('keeps values that contain backticks or HTML inert', () => {
    const tricky = update(1, '```\n<script>alert(1)</script>', 'ok');
    tricky.address = 'role:org/<b>Eng</b>';
    const md = renderMarkdown(plan([tricky]));
    expect(md).toContain('<b>role:org/&lt;b&gt;Eng&lt;/b&gt;</b>');
    // The diff block is fenced with more backticks than any run inside it.
    expect(md).toContain('````diff');
  });

  it('shows every change of a small plan, each in its own collapsible section', () => {
    const md = renderMarkdown(plan([update(1), update(2)]));
    expect(md.split('<details>').length - 1).toBe(2);
    expect(md).toContain('-         "rollout_percentage": 10');
    expect(md).toContain('+         "rollout_percentage": 50');
    expect(md).not.toContain('not shown');
  });

  it('shows each step of a change split in ordered steps as a section of its own, saying which', () => {
    const address = 'experiment:org/1/Checkout';
    const steps: Change[] = [
      { address, kind: 'experiment', organization: 'org', project: 1, key: '1/Checkout', action: 'update', step: { number: 1, of: 2 }, fields: [{ path: 'conclusion', before: null, after: 'won', sensitive: false }] },
      { address, kind: 'experiment', organization: 'org', project: 1, key: '1/Checkout', action: 'update', step: { number: 2, of: 2 }, fields: [{ path: 'archived', before: false, after: true, sensitive: false }] },
    ];
    const md = renderMarkdown(plan(steps));
    const summaries = md.split('\n').filter((l) => l.startsWith('<summary>'));
    expect(summaries).toEqual([
      `<summary><code>~ update</code> <b>${address}</b> (step 1 of 2) (1 field)</summary>`,
      `<summary><code>~ update</code> <b>${address}</b> (step 2 of 2) (1 field)</summary>`,
    ]);
  });
});
