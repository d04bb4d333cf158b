// Composes schemas/hogsync.schema.json, the one JSON Schema of the configuration format, from
// the base (src/resources/base.schema.json: the organization, extension fields, shared
// definitions) and each kind's own fragment (src/resources/<kind>/schema.json: the definition of
// one item, and the words for its lists). What follows from the kinds' places in the registry is
// derived here, so a new kind declares only itself: its list at the top of a file or inside its
// parent's items, its `prune` switch, and for kinds shared across projects the organization-level
// list with `projects:` and `overrides:`. `npm run build` writes the file (scripts/build-schema.js);
// a test checks that the committed file is what this composes.
import { parentNames, type KindName } from './kind.js';

type Node = Record<string, unknown>;

/** What a kind's schema.json holds besides its definitions. */
export interface SchemaFragment {
  list?: {
    /** The list of the kind's items (top level, or inside the parent's items). */
    description?: string;
    /** Extra keywords for the list's items (`required`). */
    items?: Node;
    /** The whole list schema, for a kind whose items are written another way (a list of emails). */
    schema?: Node;
    /** Shared kinds: the organization-level list, and one project's override. */
    shared?: string;
    override?: string;
  };
  /** Kinds with `alsoUnder`: the list's description and item keywords inside each other parent. */
  listUnder?: Record<string, { description?: string; items?: Node }>;
  /** The description of its `prune:` switch (prunable kinds). */
  prune?: string;
  /** Kinds with `defaults:`: the description of the block, and of the narrowed definition. */
  defaults?: { description: string; override: string };
  $defs: Record<string, Node>;
}

/** The registry's view of a kind that composing needs. */
export interface ComposedKind {
  name: KindName;
  configKey: string;
  identityField: string;
  parent: 'organization' | KindName;
  alsoUnder?: readonly KindName[];
  prunable: boolean;
  /** Declared once at the top level for several parent items (`projects:`, `overrides:`). */
  shared?: boolean;
  label?: string;
}

const clone = <T>(v: T): T => structuredClone(v);
const ref = (def: string) => `#/$defs/${def}`;
const props = (node: Node): Record<string, Node> => (node.properties ?? {}) as Record<string, Node>;

/** "a, b and c". */
function words(list: readonly string[]): string {
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

export function composeSchema(base: Node, kinds: readonly ComposedKind[], fragmentOf: (kind: ComposedKind) => SchemaFragment): Node {
  const out = clone(base);
  const defs = out.$defs as Record<string, Node>;
  const properties = out.properties as Record<string, Node>;
  const prune: Record<string, Node> = {};
  const defaults: Record<string, Node> = {};
  const label = (k: ComposedKind) => k.label ?? k.name.replace(/_/g, ' ');
  const plural = (k: ComposedKind) => k.configKey.replace(/_/g, ' ');
  const byName = new Map(kinds.map((k) => [k.name, k]));

  for (const kind of kinds) {
    const fragment = fragmentOf(kind);
    for (const [name, def] of Object.entries(fragment.$defs)) defs[name] = clone(def);
    const def = defs[kind.name];
    if (!def) throw new Error(`the schema fragment of ${kind.name} has no $defs.${kind.name}`);
    const list = fragment.list ?? {};
    const items = { type: 'object', $ref: ref(kind.name), ...(list.items ? clone(list.items) : {}) };

    if (kind.parent === 'organization') {
      properties[kind.configKey] = list.schema ? clone(list.schema) : { type: 'array', items, description: list.description };
    } else {
      for (const parentName of parentNames(kind)) {
        const parent = byName.get(parentName);
        const parentDef = parent ? defs[parent.name] : undefined;
        if (!parent || !parentDef) throw new Error(`${kind.name}: its parent ${parentName} must come first in the registry`);
        // Under another parent, the list may say otherwise and narrow its items (an insight's subscriptions name no insights).
        const under = parentName === kind.parent ? undefined : fragment.listUnder?.[parentName];
        const nestedItems = { ...items, ...(under?.items ? clone(under.items) : {}), required: [kind.identityField] };
        const nested: Node = list.schema ? { ...clone(list.schema), 'x-kind': kind.name } : { type: 'array', items: nestedItems, description: under?.description ?? list.description };
        if (kind.shared) {
          (nested.items as Node).propertyNames = {
            not: { enum: ['projects', 'overrides'] },
            'x-reason': `\`projects\` and \`overrides\` belong to organization-level ${plural(kind)} (the top-level ${kind.configKey} list)`,
          };
        }
        parentDef.properties = { ...props(parentDef), [kind.configKey]: nested };
      }
    }

    if (kind.shared && kind.parent !== 'organization') {
      const parent = byName.get(kind.parent) as ComposedKind;
      def.properties = {
        ...props(def),
        projects: {
          type: 'array', minItems: 1, items: { $ref: ref('project_ref') }, 'x-config-only': true,
          description: `Organization-level ${plural(kind)} only: the ${plural(parent)} that get this ${label(kind)}, by id or alias. Default: every declared ${label(parent)} (not ensure: absent).`,
        },
        overrides: {
          type: 'object', propertyNames: { $ref: ref('project_ref_key') }, additionalProperties: { $ref: ref(`${kind.name}_override`) }, 'x-config-only': true,
          description: `Organization-level ${plural(kind)} only: per ${label(parent)} (id or alias), ${label(kind)} fields whose value differs in that ${label(parent)}. Each field given replaces the shared value whole.`,
        },
      };
      // An `id:` pin (kinds whose names repeat) names one parent's item: ids differ per parent.
      const pins = kind.identityField !== 'id' && props(def).id?.['x-config-only'] === true;
      const own = [kind.identityField, ...(pins ? ['id'] : []), 'ensure', ...('renamed_from' in props(def) ? ['renamed_from'] : []), 'projects', 'overrides'];
      defs[`${kind.name}_override`] = {
        type: 'object', $ref: ref(kind.name),
        propertyNames: { not: { enum: own }, 'x-reason': `${words(own)} belong to the ${label(kind)} itself, not to one ${label(parent)}'s override` },
        description: list.override,
      };
      const sharedItems: Node = { type: 'object', $ref: ref(kind.name), required: [kind.identityField] };
      if (pins) {
        sharedItems.propertyNames = {
          not: { enum: ['id'] },
          'x-reason': `an id pins one ${label(parent)}'s ${label(kind)} (ids differ per ${label(parent)}): declare that ${label(kind)} in its ${label(parent)}'s own ${kind.configKey} list`,
        };
      }
      properties[kind.configKey] = { type: 'array', items: sharedItems, description: list.shared };
    }

    if (kind.prunable) prune[kind.configKey] = { type: 'boolean', description: fragment.prune };
    if (fragment.defaults) {
      const children = kinds.filter((c) => c.parent === kind.name).map((c) => c.configKey);
      const configOnly = Object.entries(props(def)).filter(([, p]) => p['x-config-only'] === true).map(([name]) => name);
      const own = [kind.identityField, 'ensure', ...configOnly, ...children];
      defs[`${kind.name}_defaults`] = {
        type: 'object', $ref: ref(kind.name),
        propertyNames: { not: { enum: own }, 'x-reason': `${words(own)} belong to each ${label(kind)} and have no default` },
        description: fragment.defaults.override,
      };
      defaults[kind.configKey] = { $ref: ref(`${kind.name}_defaults`), description: fragment.defaults.description };
    }
  }

  properties.defaults = { $ref: ref('defaults'), description: 'Values every declared item of a kind gets unless it declares the field itself. May appear in several files; the same field twice is an error.' };
  properties.prune = { $ref: ref('prune'), description: 'Kinds this configuration owns entirely: live items it does not declare are deleted. Default false for each.' };
  defs.defaults = { type: 'object', additionalProperties: false, description: 'Default values per kind, for every declared item of that kind.', properties: defaults };
  defs.prune = { type: 'object', additionalProperties: false, description: 'Kinds this configuration owns entirely: live items it does not declare are deleted. Default false for each.', properties: prune };
  return out;
}
