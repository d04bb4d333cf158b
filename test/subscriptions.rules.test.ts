// Which planned subscription changes say `sends a delivery now` (the API delivers at once on
// them: posthog/api/subscription.py), offline: a create enabled, a change of recipients, target
// or exported insights, and turning one on again; never a change of schedule or title, or a
// change of a disabled one. Recipients added are named, saying they are invited again.
import { describe, expect, it } from 'vitest';
import type { PreviewInput } from '../src/resources/kind.js';
import { subscription } from '../src/resources/subscription/kind.js';

const scope = { organization: 'org', project: 1 };
const live = { id: 7, title: 'Weekly', target_value: 'alice@example.com', enabled: true, frequency: 'weekly' };
const change = (action: PreviewInput['action'], values: Record<string, unknown>, liveOver: Record<string, unknown> = {}): PreviewInput => ({
  address: 'subscription:org/1/dashboard/Growth/Weekly', action, scope, identity: 'Weekly', values, changed: Object.keys(values),
  ...(action === 'create' ? {} : { live: { ...live, ...liveOver } }),
});
const annotate = (input: PreviewInput) => subscription.annotate?.(input);

describe('a subscription change that sends a delivery says so', () => {
  it('a create sends one unless it is created disabled', () => {
    expect(annotate(change('create', { target_value: ['a@example.com'] }))?.sends_delivery).toBe(true);
    expect(annotate(change('create', { target_value: ['a@example.com'], enabled: false }))).toBeUndefined();
  });

  it('recipients, target and exported insights send one; schedule and title do not', () => {
    expect(annotate(change('update', { target_type: 'slack' }))?.sends_delivery).toBe(true);
    expect(annotate(change('update', { insights: [{ insight: 3 }] }))?.sends_delivery).toBe(true);
    expect(annotate(change('update', { frequency: 'daily', byweekday: ['friday'] }))).toBeUndefined();
    expect(annotate(change('update', { title: 'Other' }))).toBeUndefined();
    // A disabled subscription delivers nothing, whatever changes.
    expect(annotate(change('update', { target_type: 'slack' }, { enabled: false }))).toBeUndefined();
  });

  it('turning it on again sends one', () => {
    expect(annotate(change('update', { enabled: true }, { enabled: false }))?.sends_delivery).toBe(true);
    expect(annotate(change('update', { enabled: false }))).toBeUndefined();
  });

  it('names the recipients added, who are invited again, and compares recipients as a set', () => {
    const added = annotate(change('update', { target_value: ['bob@example.com', 'Alice@example.com'] }));
    expect(added).toEqual({ sends_delivery: true, notes: ['adds bob@example.com to the recipients: the API sends each of them the subscription, which invites again anyone who unsubscribed'] });
    expect(subscription.normalizers?.target_value?.('b@x.io,a@x.io')).toEqual(subscription.normalizers?.target_value?.(['A@x.io', 'b@x.io']));
    expect(subscription.normalizers?.start_date?.('2026-01-05T09:00:00.000000+00:00')).toEqual(subscription.normalizers?.start_date?.('2026-01-05T09:00:00Z'));
  });

  it('a reviewer reads the recipients and the exported insights added and removed, by name', () => {
    expect(subscription.describeField?.('insights', [{ insight: { insight: 'Weekly signups' } }, { insight: { insight: 'Revenue' } }], [{ insight: { insight: 'Weekly signups' } }, { insight: { insight: 'Funnel' } }], { sensitive: false, redacted: '(sensitive)' }))
      .toEqual([{ kind: 'text', sign: '-', text: 'insight Revenue' }, { kind: 'text', sign: '+', text: 'insight Funnel' }]);
    expect(subscription.describeField?.('target_value', ['a@example.com', 'b@example.com'], ['a@example.com'], { sensitive: false, redacted: '(sensitive)' }))
      .toEqual([{ kind: 'text', sign: '-', text: 'recipient b@example.com' }]);
  });
});
