// The JUnit drift report: one test case per managed item, failing where it drifted; names keep
// every character XML allows (emoji included) and lose only those it cannot carry.
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../src/render/junit.js';
import type { Plan } from '../src/plan/types.js';

const base: Plan = {
  format_version: '1', kind: 'drift', base_url: 'x', sources: [], fingerprint: `sha256:${'0'.repeat(64)}`,
  summary: { create: 0, update: 1, delete: 0, unchanged: 1, unmanaged: 0 }, changes: [], unmanaged: [], warnings: [],
  managed: [{ address: 'role:org/Team 🚀', digest: 'a' }, { address: 'role:org/Team 🔥 <&">\u001b', digest: 'b' }],
};

describe('junit drift report', () => {
  it('keeps emoji, escapes markup, shows controls escaped (as the text report does) and drops what XML cannot hold', () => {
    const xml = renderJunit({
      ...base,
      changes: [{ address: 'role:org/Team 🔥 <&">\u001b', kind: 'role', organization: 'org', project: null, key: 'k', action: 'update', fields: [{ path: 'feature_flags_access_level', before: 21, after: 37, sensitive: false }] }],
    });
    expect(xml).toContain('<testcase classname="hogsync.role" name="role:org/Team 🚀"/>');
    expect(xml).toContain('name="role:org/Team 🔥 &lt;&amp;&quot;&gt;\\u001b"');
    expect(xml).toContain('<testsuite name="hogsync drift" tests="2" failures="1"');
    expect(xml).toContain('feature_flags_access_level: live 21, files say 37');
    expect(xml).not.toContain('\u001b');
  });
});
