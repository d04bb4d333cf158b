// A dashboard's tiles in the text and Markdown plans: tiles on, off and moved, and the 12-column
// grid drawn before and after with each tile's name in its box; the JSON plan keeps the numbers.
import { describe, expect, it } from 'vitest';
import { describeTiles, drawGrid } from '../src/resources/dashboard/grid.js';
import { renderMarkdown } from '../src/render/markdown.js';
import type { Plan } from '../src/plan/types.js';

const live = [
  { id: 1, insight: { id: 7, name: 'Weekly signups' }, text: null, layouts: { sm: { x: 0, y: 0, w: 6, h: 3, minW: 3 }, xs: { x: 0, y: 0, w: 1, h: 3 } } },
  { id: 2, insight: null, text: { id: 1, body: 'Staff excluded' }, layouts: { sm: { x: 6, y: 0, w: 6, h: 2 } } },
  { id: 3, insight: { id: 8, name: 'Old chart' }, text: null, layouts: { sm: { x: 0, y: 3, w: 12, h: 2 } } },
];
const declared = [
  { insight: { insight: 'Weekly signups' }, layout: { x: 0, y: 0, w: 8, h: 3 } },
  { text: 'Staff excluded', layout: { x: 8, y: 0, w: 4, h: 2 } },
  { insight: { insight: 'Revenue' } },
];

describe('dashboard grid', () => {
  it('draws each tile as a box on 12 columns, its name in its top edge', () => {
    expect(drawGrid([{ name: 'A', box: { x: 0, y: 0, w: 6, h: 2 } }, { name: 'B', box: { x: 6, y: 0, w: 6, h: 1 } }])).toEqual([
      '+-A---------------------+-B---------------------+',
      '|                       +-----------------------+',
      '+-----------------------+',
    ]);
  });

  it('says which tiles come on, go off and move, then draws the grid before and after', () => {
    const lines = describeTiles(live, declared).map((l) => (l.kind === 'text' ? `${l.sign} ${l.text}` : 'json'));
    expect(lines.slice(0, 5)).toEqual([
      '~ tile Weekly signups: x 0, y 0, 6×3 → x 0, y 0, 8×3',
      '~ tile “Staff excluded”: x 6, y 0, 6×2 → x 8, y 0, 4×2',
      '+ tile Revenue (x 0, y 3, 6×5)',
      '- tile Old chart (off the dashboard; an insight stays)',
      '  before:',
    ]);
    expect(lines).toContain('    +-Weekly signups--------+-“Staff excluded”------+');
    expect(lines).toContain('    +-Weekly signups----------------+-“Staff exclu…-+');
    expect(lines).toContain('    +-Revenue---------------+-------+');
    expect(lines.indexOf('  after:')).toBeGreaterThan(lines.indexOf('  before:'));
    expect(describeTiles(live, [{ insight: { insight: 'Weekly signups' } }, { text: 'Staff excluded' }, { insight: { insight: 'Old chart' } }])).toEqual([]);
  });

  it('shows the grid in the Markdown plan inside the diff block; the JSON plan keeps x, y, w and h', () => {
    const change = {
      address: 'dashboard:org/111/Growth', kind: 'dashboard', action: 'update' as const,
      fields: [{ path: 'tiles', before: live, after: declared, sensitive: false }],
    };
    const plan = { format_version: '1', kind: 'plan', base_url: 'http://x', changes: [change], summary: { create: 0, update: 1, delete: 0 }, unmanaged: [], warnings: [] } as unknown as Plan;
    const md = renderMarkdown(plan);
    expect(md).toContain('+-Weekly signups');
    expect(md).toMatch(/```diff[\s\S]*before:[\s\S]*after:[\s\S]*```/);
    expect(JSON.stringify(change.fields[0])).toContain('"w":8');
  });
});
