// The dashboard kind's own rules, offline: `{}` cannot clear filters or variables (a plan error,
// since the API writes only a non-empty value and the plan would never converge); tiles compare
// as a set by what they show, with only the display fields a tile declares, `xs` derived from
// the `sm` layouts (one column, stacked in reading order) unless `layouts` gives it; and the
// dashboards the API makes are never items.
import { describe, expect, it } from 'vitest';
import { dashboard } from '../src/resources/dashboard/kind.js';
import { compareTiles } from '../src/resources/dashboard/tiles.js';
import type { ScopeView } from '../src/resources/kind.js';

const view = (values: Record<string, unknown>, live: Record<string, unknown>): ScopeView => ({
  scope: { organization: 'org', project: 111 },
  items: [{ key: 'Growth', ensure: 'present', fields: values, position: { file: 'a.yaml', line: 3, col: 5 } }],
  records: [live], gone: [],
  changes: [{ address: 'dashboard:org/111/Growth', action: 'update', identity: 'Growth', scope: { organization: 'org', project: 111 }, live, values }],
});

describe('dashboard rules', () => {
  it('refuses filters: {} where live filters are set, at the dashboard\'s line; a non-empty value is fine', () => {
    const refused = dashboard.check?.(view({ filters: {} }, { id: 1, name: 'Growth', filters: { date_from: '-30d' } }));
    expect(refused?.error).toMatch(/filters: \{\} cannot clear the dashboard's filters: the API writes only a non-empty value/);
    expect(refused?.errorAt).toEqual({ file: 'a.yaml', line: 3, col: 5 });
    expect(dashboard.check?.(view({ filters: { date_from: '-7d' } }, { id: 1, name: 'Growth', filters: { date_from: '-30d' } }))).toEqual({});
    expect(dashboard.check?.(view({ variables: {} }, { id: 1, name: 'Growth', variables: {} }))).toEqual({});
  });

  it('compares tiles as a set, only what each declares, xs derived in reading order', () => {
    const live = [
      { id: 2, insight: null, text: { body: 'Note' }, layouts: { sm: { x: 6, y: 0, w: 6, h: 2, minW: 1 }, xs: { x: 0, y: 5, w: 1, h: 2 } }, color: 'blue', deleted: false },
      { id: 1, insight: { id: 7, name: 'A' }, text: null, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 0, w: 1, h: 5 } }, color: null, deleted: false },
      { id: 3, insight: { id: 9, name: 'Gone' }, deleted: true },
    ];
    const same = (declared: unknown) => { const [d, l] = compareTiles(declared, live); return JSON.stringify(d) === JSON.stringify(l); };
    expect(same([{ insight: 7, layout: { x: 0, y: 0, w: 6, h: 5 } }, { text: 'Note', layout: { x: 6, y: 0, w: 6, h: 2 } }])).toBe(true);
    // No layout declared: the live one is kept, whatever it is; the order of the file is no difference.
    expect(same([{ text: 'Note', color: 'blue' }, { insight: 7 }])).toBe(true);
    expect(same([{ insight: 7, layout: { x: 0, y: 0, w: 4, h: 5 } }, { text: 'Note' }])).toBe(false);
    expect(same([{ insight: 7 }, { text: 'Note', color: 'red' }])).toBe(false);
    expect(same([{ insight: 7 }])).toBe(false);
    // An xs given whole must match; a derived one stacks by sm reading order.
    expect(same([{ insight: 7, layout: { x: 0, y: 0, w: 6, h: 5 } }, { text: 'Note', layouts: { sm: { x: 6, y: 0, w: 6, h: 2 }, xs: { x: 0, y: 0, w: 1, h: 2 } } }])).toBe(false);
  });

  it('never takes the dashboards the API makes: flag usage and template dashboards, unlisted ones, unnamed ones', () => {
    const listed = (r: Record<string, unknown>) => dashboard.listed?.(r);
    expect(listed({ name: 'Growth', creation_mode: 'default' })).toBe(true);
    expect(listed({ name: 'Generated Dashboard: new-checkout Usage', creation_mode: 'template' })).toBe(false);
    // A dashboard someone made from a template is theirs.
    expect(listed({ name: 'Product analytics', creation_mode: 'template' })).toBe(true);
    expect(listed({ name: 'Web analytics', creation_mode: 'unlisted' })).toBe(false);
    expect(listed({ name: null, creation_mode: 'default' })).toBe(false);
  });
});
