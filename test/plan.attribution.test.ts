// Attribution from activity log entries: per drifted field the newest entry that changed it,
// else the item's newest entry; how it reads.
import { describe, expect, it } from 'vitest';
import { attribute, attributionText, topField, type ActivityEntry } from '../src/plan/attribution.js';

const entry = (email: string | null, at: string, fields: string[], activity = 'updated'): ActivityEntry => ({
  user: email === null ? null : { first_name: email.split('@')[0], email },
  is_system: email === null,
  activity,
  created_at: at,
  detail: { name: 'x', changes: fields.length === 0 ? null : fields.map((field) => ({ type: 'Team', action: 'changed', field, before: 1, after: 2 })) },
});

// Newest first, as the API answers.
const log = [
  entry('bob@example.com', '2026-11-22T09:00:00Z', ['name']),
  entry('alice@example.com', '2026-11-21T14:03:12.5Z', ['timezone', 'anonymize_ips']),
  entry('carol@example.com', '2026-11-20T08:00:00Z', ['timezone']),
  entry('dave@example.com', '2026-11-01T08:00:00Z', [], 'created'),
];

describe('attribute', () => {
  it('names, per field, the newest entry that changed that field', () => {
    const found = attribute(log, ['timezone', 'name', 'session_replay_config.x']);
    expect(found.get('timezone')).toEqual({ by: 'alice@example.com', at: '2026-11-21T14:03:12.5Z', activity: 'updated', field: 'timezone' });
    expect(found.get('name')).toMatchObject({ by: 'bob@example.com', field: 'name' });
    // A field no entry changed: the item's newest entry, without a field.
    expect(found.get('session_replay_config.x')).toEqual({ by: 'bob@example.com', at: '2026-11-22T09:00:00Z', activity: 'updated', field: null });
  });

  it('attributes an item as a whole to its newest entry, and names the system', () => {
    expect(attribute(log.slice(3), []).get('')).toMatchObject({ by: 'dave@example.com', activity: 'created' });
    expect(attribute([entry(null, '2026-11-22T09:00:00Z', ['timezone'])], ['timezone']).get('timezone')).toMatchObject({ by: 'system' });
    expect(attribute([{ user: { first_name: 'Eve', email: '' }, created_at: '2026-11-22T09:00:00Z', detail: { changes: [{ field: 'x' }] } }], ['x']).get('x')).toMatchObject({ by: 'Eve' });
  });

  it('answers nothing for an empty log or entries it cannot read', () => {
    expect(attribute([], ['timezone']).size).toBe(0);
    expect(attribute([{ detail: null }, { user: { email: 'a@b.c' } }], ['timezone']).size).toBe(0);
  });

  it('reads as the report shows it', () => {
    const found = attribute(log, ['timezone', 'x']);
    expect(attributionText(found.get('timezone')!)).toBe('changed by alice@example.com at 2026-11-21 14:03 UTC');
    expect(attributionText(found.get('x')!)).toBe('item last changed by bob@example.com at 2026-11-22 09:00 UTC');
    expect(attributionText(attribute(log.slice(3), []).get('')!, true)).toBe('created by dave@example.com at 2026-11-01 08:00 UTC');
    expect(topField('filters.groups[0]')).toBe('filters');
  });
});
