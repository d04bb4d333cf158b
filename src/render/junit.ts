// The JUnit rendering of a drift report: one test case per managed item, failing where live
// state drifted, so CI dashboards show drift like failing tests.
import { findingsOf, heldByText, type Plan } from '../plan/types.js';
import { fieldAttribution, inline, inlineField, itemAttribution, sinceLine } from './values.js';

function xml(text: string): string {
  // Controls that could rewrite or reorder a CI log's text (ESC, NUL, BEL, DEL, C1, bidi) shown as
  // \uXXXX escapes, as the text report shows them (line breaks and tabs kept); then drops what
  // XML 1.0 cannot carry at all (lone surrogates, U+FFFE/U+FFFF).
  const shown = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderJunit(plan: Plan): string {
  const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
  const cases: string[] = [];
  for (const item of plan.managed) {
    const kind = item.address.slice(0, item.address.indexOf(':'));
    const change = byAddress.get(item.address);
    const open = `    <testcase classname="hogsync.${xml(kind)}" name="${xml(item.address)}"`;
    if (!change) {
      cases.push(`${open}/>`);
      continue;
    }
    const what = change.action === 'create' ? 'missing from the live workspace' : change.action === 'delete' ? 'present but should be deleted' : 'differs from the configuration';
    const details = change.fields.map((f) => {
      const by = fieldAttribution(f);
      // The same words as the text report: which side is live, which is the files.
      return `${f.path}: live ${inlineField(f, 'before')}, files say ${inlineField(f, 'after')}${by ? ` (${by})` : ''}`;
    }).join('\n');
    // Who changed it, and when, in the message itself: CI dashboards show the message first.
    const who = [...new Set(change.fields.flatMap((f) => {
      const by = fieldAttribution(f);
      return by ? [`${f.path} ${by}`] : [];
    }))];
    const whole = itemAttribution(change);
    const message = `${change.address} ${what}${whole ? `; ${whole}` : ''}${who.length > 0 ? `; ${who.join('; ')}` : ''}`;
    cases.push(`${open}>`, `      <failure message="${xml(message)}" type="drift">${xml(details)}</failure>`, '    </testcase>');
  }
  // With --fail-on-unmanaged every unmanaged item is a failing case of its own, as drift is.
  if (plan.fail_on_unmanaged) {
    for (const u of plan.unmanaged) {
      cases.push(`    <testcase classname="hogsync.${xml(u.kind)}" name="${xml(u.address)}">`,
        `      <failure message="${xml(`${u.address} is live but no file declares it (unmanaged; --fail-on-unmanaged)${u.held_by ? `; ${heldByText(u.held_by)}: never pruned` : ''}`)}" type="unmanaged"/>`, '    </testcase>');
    }
  }
  const failures = findingsOf(plan);
  const tests = plan.managed.length + (plan.fail_on_unmanaged ? plan.unmanaged.length : 0);
  const unmanaged = plan.fail_on_unmanaged ? '' : plan.unmanaged.map((u) => (u.held_by ? `${u.address} (${heldByText(u.held_by)}: never pruned)` : u.address)).join('\n');
  // A since report says so where dashboards look (a property) and where people read (the output).
  const since = sinceLine(plan);
  const out = [since, unmanaged ? `Unmanaged (live, in no file):\n${unmanaged}` : ''].filter((t) => t).join('\n\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="hogsync drift" tests="${tests}" failures="${failures}">`,
    `  <testsuite name="hogsync drift" tests="${tests}" failures="${failures}" errors="0" skipped="0">`,
    plan.since !== undefined ? `    <properties>\n      <property name="since" value="${xml(plan.since)}"/>\n    </properties>` : '',
    ...cases,
    out ? `    <system-out>${xml(out)}</system-out>` : '',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].filter((l) => l !== '').join('\n') + '\n';
}
