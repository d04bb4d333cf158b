// The desired state, as the loader hands it to the planner: every declared item of every
// organization, merged across files, interpolated, validated, each with where it was declared.
import type { FilePosition } from '../errors.js';
import type { KindName } from '../resources/kind.js';

export interface DesiredItem {
  kind: KindName;
  organization: string;
  /** The id of the parent item for kinds nested in another kind's items; null for top-level kinds. */
  project: number | null;
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
