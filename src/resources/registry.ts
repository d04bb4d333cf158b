// Every resource kind hogsync manages. Adding a kind is one module and one line here.
import type { KindName, ResourceKind } from './kind.js';
import { project } from './project.js';
import { proxyRecord } from './proxy_record.js';
import { role } from './role.js';
import { featureFlag } from './feature_flag.js';

/** In the order plans list them and apply creates them. */
export const KINDS: readonly ResourceKind[] = [project, proxyRecord, role, featureFlag];

export function kindByName(name: KindName): ResourceKind {
  const kind = KINDS.find((k) => k.name === name);
  if (!kind) throw new Error(`unknown resource kind ${name}`);
  return kind;
}
