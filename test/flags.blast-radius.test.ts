// parseBlastRadius: both answer shapes of user_blast_radius, and nothing else.
import { describe, expect, it } from 'vitest';
import { parseBlastRadius } from '../src/resources/feature_flag/kind.js';

describe('parseBlastRadius', () => {
  it('reads {affected, total}', () => {
    expect(parseBlastRadius({ affected: 12, total: 120 })).toEqual({ affected: 12, total: 120 });
    expect(parseBlastRadius({ affected: 0, total: 0 })).toEqual({ affected: 0, total: 0 });
  });

  it('reads the older {users_affected, total_users}', () => {
    expect(parseBlastRadius({ users_affected: 7, total_users: 9 })).toEqual({ affected: 7, total: 9 });
  });

  it('keeps only the two numbers of a richer answer', () => {
    expect(parseBlastRadius({ affected: 3, total: 4, extra: 'x' })).toEqual({ affected: 3, total: 4 });
  });

  it.each([
    ['null', null],
    ['a string', '12 of 120'],
    ['a number', 12],
    ['an array', [12, 120]],
    ['an empty object', {}],
    ['a missing total', { affected: 12 }],
    ['a missing affected', { total: 120 }],
    ['numeric strings', { affected: '12', total: '120' }],
    ['a negative count', { affected: -1, total: 120 }],
    ['a null count', { users_affected: null, total_users: 5 }],
  ])('rejects %s', (_name, body) => {
    expect(parseBlastRadius(body)).toBeNull();
  });
});
