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
  fields: [{ path: 'filters', before: { groups: [{ properties: [], rollout_percentage: before }] }, after: { groups: [{ properties: [], rollout_percentage: after }] }, sensitive: false }],
});

describe('markdown plan', () => {
  it('stays under the comment size limit, says what it left out, and keeps the warnings', () => {
    const changes = Array.from({ length: 2000 }, (_, i) => update(i));
    const md = renderMarkdown(plan(changes, { warnings: ['apply will refuse unless run with --allow-delete project/777: deleting project 777'] }));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(md).toContain('Plan: 0 to create, 2000 to update, 0 to delete.');
    expect(md).toMatch(/> \d+ more changes not shown: this comment would pass 60000 characters\./);
    expect(md).toContain('--allow-delete project/777');
    const shown = md.split('<details>').length - 1;
    expect(md).toContain(`> ${2000 - shown} more changes not shown`);
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
});
