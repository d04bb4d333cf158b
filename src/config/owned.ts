// Items that another declared item owns (an experiment's flag: made by the experiment, written
// through it): the files may not also declare them under their own kind. Found offline, at the
// owned item's line, naming its owner (ResourceKind.owns).
import type { DesiredState } from './model.js';
import { formatPosition, type ConfigProblem } from './problems.js';
import { KINDS, type Kinds } from '../resources/registry.js';

export function ownedTwice(state: DesiredState, kinds: Kinds = KINDS): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const owners = kinds.filter((k) => k.owns);
  if (owners.length === 0) return problems;
  for (const org of state.organizations) {
    const owned = new Map<string, { owner: string; label: string; at: string }>();
    for (const item of org.items) {
      const kind = owners.find((k) => k.name === item.kind);
      const owns = kind?.owns;
      if (!owns || item.ensure !== 'present') continue;
      const value = item.fields[owns.field];
      if (typeof value !== 'string') continue;
      owned.set(`${owns.kind}|${item.project ?? ''}|${value}`, { owner: item.key, label: kind.label ?? kind.name.replace(/_/g, ' '), at: formatPosition(item.position) });
    }
    if (owned.size === 0) continue;
    for (const item of org.items) {
      const by = owned.get(`${item.kind}|${item.project ?? ''}|${item.key}`);
      if (!by) continue;
      problems.push({ position: item.position, message: `${item.key} is owned by ${by.label} "${by.owner}" (${by.at}): declare it there, not here` });
    }
  }
  return problems;
}
