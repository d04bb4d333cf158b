// --target addresses: globs over KIND:ORG/KEY, keys compared as their kind compares them, and
// whether a collection's scope could hold a targeted item (so untargeted scopes are not read).
import { describe, expect, it } from 'vitest';
import { parseTargets, unmatchedDerived } from '../src/plan/targeting.js';
import type { Plan } from '../src/plan/types.js';
import { eventDefinition } from '../src/resources/event_definition/kind.js';
import { restrictReads } from '../src/state/targeted-reads.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';

describe('--target', () => {
  it('matches exact addresses and `*` globs, `*` spanning slashes', () => {
    const t = parseTargets(['feature_flag:*/111/*', `role:${ORG}/Engineers`]);
    expect(t.matches(`feature_flag:${ORG}/111/new-checkout`)).toBe(true);
    expect(t.matches(`feature_flag:${ORG}/1111/new-checkout`)).toBe(false);
    expect(t.matches(`feature_flag:${ORG}/222/new-checkout`)).toBe(false);
    expect(t.matches(`role:${ORG}/Engineers`)).toBe(true);
    expect(t.matches(`role:${ORG}/Support`)).toBe(false);
    expect(parseTargets(['feature_flag:*']).matches(`feature_flag:${ORG}/1/x`)).toBe(true);
    expect(parseTargets(['*:*/Engineers']).matches(`role:${ORG}/Engineers`)).toBe(true);
  });

  it('compares keys as the kind does: role names ignore case, flag keys do not; organization ids ignore case', () => {
    expect(parseTargets(['role:*/engineers']).matches(`role:${ORG}/Engineers`)).toBe(true);
    expect(parseTargets(['feature_flag:*/111/New-Checkout']).matches(`feature_flag:${ORG}/111/new-checkout`)).toBe(false);
    expect(parseTargets([`proxy_record:${ORG.toUpperCase()}/e.example.com`]).matches(`proxy_record:${ORG}/e.example.com`)).toBe(true);
  });

  it('knows which collections could hold a targeted item', () => {
    const t = parseTargets(['feature_flag:*/111/new-checkout']);
    expect(t.couldMatchUnder(`feature_flag:${ORG}/111/`)).toBe(true);
    expect(t.couldMatchUnder(`feature_flag:${ORG}/222/`)).toBe(false);
    expect(t.couldMatchUnder(`role:${ORG}/`)).toBe(false);
    expect(t.couldMatchUnder(`project:${ORG}/`)).toBe(false);
    expect(parseTargets(['*']).couldMatchUnder(`role:${ORG}/`)).toBe(true);
    expect(parseTargets(['role:*/Eng*']).couldMatchUnder(`role:${ORG}/`)).toBe(true);
  });

  it('refuses what cannot be an address, with a one-line example', () => {
    for (const bad of ['', 'Engineers', 'roles:*/Engineers', 'flag:1/x', 'role:Engineers', 'role:\u0000/x']) {
      expect(() => parseTargets([bad]), bad).toThrow(/--target .*(not an address|expected KIND:ORG\/KEY)/);
    }
  });
});

describe('--target with project aliases', () => {
  it('writes an alias as the id it stands for, where a project id goes', async () => {
    const { resolveAliases } = await import('../src/plan/targeting.js');
    const aliases = new Map([['prod', '2003']]);
    expect(resolveAliases(['feature_flag:*/prod/*', 'project:*/PROD', 'role:*/prod', 'feature_flag:*/2001/prod'], aliases))
      .toEqual(['feature_flag:*/2003/*', 'project:*/2003', 'role:*/prod', 'feature_flag:*/2001/prod']);
  });
});

describe('--changed-since targets that match nothing', () => {
  it('are said, except a removed declaration whose item is gone', () => {
    const plan = {
      managed: [{ address: `feature_flag:${ORG}/2001/x`, digest: '' }], unmanaged: [{ address: `role:${ORG}/Old`, kind: 'role', organization: ORG, key: 'Old' }],
      targets: { addresses: [], left_out: 0, changed_since: { revision: 'main', commit: 'c', derived: [
        { address: 'feature_flag:shop/2001/*', reason: 'pruned_scope' }, { address: `feature_flag:${ORG}/2001/*`, reason: 'pruned_scope' },
        { address: `feature_flag:${ORG}/2001/y`, reason: 'changed' }, { address: `role:${ORG}/old`, reason: 'added' }, { address: `role:${ORG}/Gone`, reason: 'removed' },
      ] } },
    } as unknown as Plan;
    expect(unmatchedDerived(plan)).toEqual([
      '--changed-since main: feature_flag:shop/2001/* (pruned_scope) matches no declared or live item, so nothing of it is planned, although the files changed it',
      `--changed-since main: feature_flag:${ORG}/2001/y (changed) matches no declared or live item, so nothing of it is planned, although the files changed it`,
    ]);
    // Beside --target, what the addresses leave out is not said to match nothing.
    const beside = { ...plan, targets: { ...plan.targets, addresses: ['role:*'] } } as Plan;
    expect(unmatchedDerived(beside)).toEqual([]);
  });
});

describe('the reads of a targeted plan', () => {
  it('searches only the targeted names of a kind read by name (one search per name, never the list)', () => {
    const read = { kind: eventDefinition, scope: { organization: ORG, project: 111 }, list: false, ids: [], searches: ['signed_up', 'purchase', 'churned'] };
    expect(restrictReads([read], parseTargets([`event_definition:${ORG}/111/purchase`]))).toEqual([{ ...read, searches: ['purchase'] }]);
    expect(restrictReads([read], parseTargets([`event_definition:${ORG}/111/*`]))).toEqual([read]);
    expect(restrictReads([read], parseTargets([`event_definition:${ORG}/222/*`]))).toEqual([]);
  });
});
