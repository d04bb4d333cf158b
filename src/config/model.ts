// The desired state, as the loader hands it to the planner: every declared item of every
// organization, merged across files, interpolated, validated, each with where it was declared.
import type { FilePosition } from '../errors.js';
import type { KindName } from '../resources/kind.js';

export interface DesiredItem {
  kind: KindName;
  organization: string;
  /** The project the item lives in (its parent project's id); null for items of the organization. */
  project: number | null;
  /**
   * The parent item, when it has no project id (a role holds its memberships; a project declared by
   * name holds its items until it has one): its kind, its key in addresses (a project's alias, else
   * its name), and the parent item's own key where that differs.
   */
  parent?: { kind: KindName; key: string; item?: string; tagged?: true };
  /** `id:` in the file (kinds whose identities repeat in the API): the live item it means, whatever its identity. */
  pin?: string | number;
  /** References by name among its fields (`{ cohort: Staff }`), with where each is written. */
  references?: DeclaredReference[];
  /** Identity as declared, canonicalized by the kind's displayKey (e.g. domain lower-cased). */
  key: string;
  ensure: 'present' | 'absent';
  /** Declared managed fields, after ${env:…} interpolation (identity, ensure and nested lists excluded). */
  fields: Record<string, unknown>;
  /** Fields whose value came through ${env:…}: treated as sensitive wherever they are shown. */
  interpolated: string[];
  /** Where the item is declared (its identity key): file:line:col, carried into its change. */
  position: FilePosition;
  /** The item's previous identity (`renamed_from`): a live item of that identity is renamed in place. */
  renamedFrom?: string;
  /**
   * Where a field's value was declared, for fields declared outside the item's own entry
   * (`defaults`, an organization-level flag's `overrides`). See declaredAt in ./shared.ts.
   */
  fieldOrigins?: Record<string, FilePosition>;
}

/** A reference by name as declared: in which field, where below it, to which item, and its line. */
export interface DeclaredReference {
  field: string;
  path: ReadonlyArray<string | number>;
  kind: KindName;
  name: string;
  position: FilePosition;
}

/** Per prunable kind (by its configKey, the key under `prune:`): whether the files own it entirely. */
export type PruneSettings = Record<string, boolean>;

export interface DesiredOrganization {
  id: string;
  /** Where the first file naming it says `organization:` (its value). */
  position?: FilePosition;
  items: DesiredItem[];
  prune: PruneSettings;
  /** Where each `prune` key that is true was first set to true. */
  pruneAt?: Partial<Record<keyof PruneSettings, FilePosition>>;
  /**
   * Whole lists a parent declares (kinds with `wholeList`, a role's `members`), even empty:
   * `KIND|SCOPE KEY` → where the list is written. Live items they leave out are deleted.
   */
  wholeLists?: Record<string, FilePosition>;
  /** Project aliases (`alias`) → the project's key (its id as a string). */
  aliases?: Record<string, string>;
}

export interface DesiredState {
  /** The files read, in order. */
  sources: string[];
  organizations: DesiredOrganization[];
  /**
   * What the files declare that loads but will not do what it seems to (a deprecated field, a
   * string written the shell's way), each at its line; absent when there is nothing to say.
   */
  warnings?: Array<{ position: FilePosition; message: string }>;
}
