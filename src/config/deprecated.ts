// Warnings for declared fields the API still returns but no longer takes (schema `x-deprecated`):
// the file is valid, but an apply would be refused, so validate says so at the item's line.
import { formatPosition } from './problems.js';
import { KINDS, kindByName, type Kinds } from '../resources/registry.js';
import { declaredAt } from './shared.js';
import type { DesiredState } from './model.js';

export function deprecatedFieldWarnings(state: DesiredState, kinds: Kinds = KINDS): string[] {
  const warnings: string[] = [];
  for (const org of state.organizations) {
    for (const item of org.items) {
      const kind = kindByName(item.kind, kinds);
      for (const field of Object.keys(item.fields)) {
        const why = kind.fields[field]?.deprecated;
        if (why === undefined) continue;
        const at = declaredAt(item, [field]).at(-1) ?? item.position;
        warnings.push(`${formatPosition(at)}: warning: ${field} is deprecated: ${why}; remove it from the file`);
      }
    }
  }
  return warnings;
}
