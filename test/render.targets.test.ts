// What a targeted plan and a change's declaration look like in text and Markdown: the plan
// says what it covers and how much it left out; every change says where it was declared.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../src/render/markdown.js';
import { renderText } from '../src/render/text.js';
import type { Change, Plan } from '../src/plan/types.js';

const change: Change = {
  address: 'feature_flag:org/3/new-checkout', kind: 'feature_flag', organization: 'org', project: 3, key: '3/new-checkout', action: 'update',
  fields: [{ path: 'key', before: 'checkout', after: 'new-checkout', sensitive: false }],
  declared_at: ['flags.yaml:8:5', 'flags.yaml:17:9'], renamed_from: 'checkout',
};

function plan(targets: Plan['targets']): Plan {
  return {
    format_version: '1', kind: 'plan', base_url: 'https://us.posthog.com', sources: ['flags.yaml'], fingerprint: `sha256:${'0'.repeat(64)}`,
    summary: { create: 0, update: 1, delete: 0, unchanged: 0, unmanaged: 0 }, changes: [change], unmanaged: [], warnings: [], managed: [],
    ...(targets ? { targets } : {}),
  };
}

describe('targeted plans and declarations, rendered', () => {
  it('names the targets and what was left out, and where each change was declared', () => {
    const derived = Array.from({ length: 12 }, (_, i) => ({ address: `feature_flag:org/${i}/x`, reason: 'changed' }));
    const p = plan({ addresses: ['feature_flag:*/3/*'], left_out: 41, changed_since: { revision: 'origin/main', commit: 'abcdef0123456789', derived } });
    const text = renderText(p, { color: false });
    expect(text.split('\n')[0]).toBe('Targeted plan: only what changed since origin/main (abcdef012345): feature_flag:org/0/x, feature_flag:org/1/x, '
      + 'feature_flag:org/2/x, feature_flag:org/3/x, feature_flag:org/4/x, feature_flag:org/5/x, feature_flag:org/6/x, feature_flag:org/7/x, '
      + 'feature_flag:org/8/x, feature_flag:org/9/x and 2 more, and items matching feature_flag:*/3/*; 41 declared items left out.');
    expect(text).toContain('      # declared at flags.yaml:8:5, flags.yaml:17:9; renamed in place from "checkout"');
    const md = renderMarkdown(p);
    expect(md).toContain('> Targeted plan: only what changed since origin/main');
    expect(md).toContain('<sub>declared at flags.yaml:8:5, flags.yaml:17:9; renamed in place from &quot;checkout&quot;</sub>');
  });

  it('says nothing of targets for a whole plan', () => {
    expect(renderText(plan(undefined), { color: false })).not.toContain('Targeted');
    expect(renderText({ ...plan({ addresses: [], left_out: 1, changed_since: { revision: 'main', commit: 'f'.repeat(40), derived: [] } }), changes: [] }, { color: false }))
      .toContain('Targeted plan: only what changed since main (ffffffffffff): nothing; 1 declared item left out.');
  });
});
