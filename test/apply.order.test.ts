// The order of apply: waves by action within a kind and scope (keys freed before they are
// taken), overridden by the kinds' pairs; flags ordered by their dependencies; a dependency
// cycle among declared flags found with its keys.
import { describe, expect, it } from 'vitest';
import { orderWaves, type Orderable } from '../src/apply/order.js';
import { dependencyCycle, flagOrder, type FlagChangeView } from '../src/resources/feature_flag/order.js';
import { removalPairs } from '../src/plan/change-order.js';
import type { ResourceKind } from '../src/resources/kind.js';
import type { Execution, PlanResult } from '../src/plan/types.js';

const c = (address: string, action: Orderable['action'], group = 'g'): Orderable => ({ address, action, group });
const dependsOn = (id: number) => ({ groups: [{ properties: [{ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] });

describe('orderWaves', () => {
  it('runs deletes, then updates, then creates of one group; other groups at once', () => {
    expect(orderWaves([c('new', 'create'), c('upd', 'update'), c('old', 'delete'), c('other', 'create', 'h')])).toEqual([['old', 'other'], ['upd'], ['new']]);
  });

  it('lets a kind put an update before a delete of its group', () => {
    const waves = orderWaves([c('base', 'delete'), c('child', 'update'), c('unrelated', 'update')], [['child', 'base']]);
    expect(waves).toEqual([['child'], ['base'], ['unrelated']]);
  });

  it('never leaves a change out, even when pairs form a cycle', () => {
    const waves = orderWaves([c('a', 'update'), c('b', 'update')], [['a', 'b'], ['b', 'a']]);
    expect(waves.flat().sort()).toEqual(['a', 'b']);
  });

  it('stays fast for thousands of changes in one group', () => {
    const many = Array.from({ length: 3000 }, (_, i) => c(`x${i}`, i % 2 === 0 ? 'delete' : 'create'));
    const started = Date.now();
    expect(orderWaves(many)).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('flagOrder', () => {
  const live = (id: number, active: boolean, filters: unknown = { groups: [{}] }) => ({ id, active, filters });

  it('deletes and disables a dependent before the flag it depends on', () => {
    const changes: FlagChangeView[] = [
      { address: 'base', action: 'delete', key: 'base', live: live(1, true), values: {} },
      { address: 'child', action: 'update', key: 'child', live: live(2, true, dependsOn(1)), values: { active: false } },
    ];
    expect(flagOrder(changes)).toEqual([['child', 'base']]);
  });

  it('enables a dependency before its dependent', () => {
    const changes: FlagChangeView[] = [
      { address: 'child', action: 'update', key: 'child', live: live(2, false, dependsOn(1)), values: { active: true } },
      { address: 'base', action: 'update', key: 'base', live: live(1, false), values: { active: true } },
    ];
    expect(flagOrder(changes)).toEqual([['base', 'child']]);
  });

  it('orders nothing between flags that do not depend on each other', () => {
    const changes: FlagChangeView[] = [
      { address: 'a', action: 'delete', key: 'a', live: live(1, true), values: {} },
      { address: 'b', action: 'update', key: 'b', live: live(2, true), values: { active: false } },
    ];
    expect(flagOrder(changes)).toEqual([]);
  });

  it('finds a cycle among declared flags, by key', () => {
    const keys: Record<number, string> = { 1: 'a', 2: 'b', 3: 'c' };
    const flags = [{ key: 'a', filters: dependsOn(2) }, { key: 'b', filters: dependsOn(3) }, { key: 'c', filters: dependsOn(1) }];
    expect(dependencyCycle(flags, (id) => keys[id])).toEqual(['a', 'b', 'c', 'a']);
    expect(dependencyCycle(flags.slice(0, 2), (id) => keys[id])).toBeNull();
  });
});

describe('orderWaves with chains', () => {
  it('runs a disable before a chain of deletes it holds up, whatever their action order', () => {
    const waves = orderWaves([c('base', 'delete'), c('middle', 'delete'), c('top', 'update')], [['middle', 'base'], ['top', 'middle']]);
    expect(waves).toEqual([['top'], ['middle'], ['base']]);
  });
});

describe('removalPairs', () => {
  // Any kind: what it refers to is declared (refersTo, reference sites, its parent), never named by the engine.
  const target = { name: 'widget', parent: 'organization' } as unknown as ResourceKind;
  const holder = { name: 'holder', parent: 'project', refersTo: [{ field: 'widget', kind: 'widget' }] } as unknown as ResourceKind;
  const part = { name: 'part', parent: 'widget' } as unknown as ResourceKind;
  const plan = (changes: Array<[string, 'create' | 'update' | 'delete', Execution]>): PlanResult => ({
    plan: { changes: changes.map(([address, action]) => ({ address, action })) },
    executions: new Map(changes.map(([address, , e]) => [address, e])),
  }) as unknown as PlanResult;

  it('runs a change that removes a reference, and a change inside the item, before the delete of the item', () => {
    const result = plan([
      ['widget', 'delete', { kind: target, scope: { organization: 'o', project: null }, identity: 'w', id: 'W1', values: {}, live: { id: 'W1' } }],
      ['grant', 'delete', { kind: holder, scope: { organization: 'o', project: 7 }, identity: 'g', id: 'g', values: {}, live: { widget: 'W1' } }],
      ['other', 'delete', { kind: holder, scope: { organization: 'o', project: 7 }, identity: 'h', id: 'h', values: {}, live: { widget: 'W2' } }],
      ['member', 'delete', { kind: part, scope: { organization: 'o', project: null, parent: { kind: 'widget', key: 'w', id: 'W1' } }, identity: 'm', id: 'm', values: {}, live: {} }],
    ]);
    expect(removalPairs(result)).toEqual([['grant', 'widget'], ['member', 'widget']]);
    const waves = orderWaves(result.plan.changes.map((ch) => c(ch.address, ch.action, ch.address)), removalPairs(result));
    expect(waves).toEqual([['grant', 'other', 'member'], ['widget']]);
  });

  it('finds what is referred to by another field of its record than its id (`by`): a grant names a membership, the member is known by its user', () => {
    const person = { name: 'person', parent: 'organization', liveId: () => 'user-1' } as unknown as ResourceKind;
    const rule = { name: 'rule', parent: 'project', refersTo: [{ field: 'member', kind: 'person', by: 'id' }] } as unknown as ResourceKind;
    const result = plan([
      ['person', 'delete', { kind: person, scope: { organization: 'o', project: null }, identity: 'p', id: 'user-1', values: {}, live: { id: 'membership-9' } }],
      ['rule', 'delete', { kind: rule, scope: { organization: 'o', project: 7 }, identity: 'r', id: 'r', values: {}, live: { member: 'membership-9' } }],
    ]);
    expect(removalPairs(result)).toEqual([['rule', 'person']]);
  });
});
