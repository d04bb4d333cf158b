// What a resource kind declares. The planner, applier, renderers and exporter are generic
// over this interface; a kind module is data plus a few small functions.

export type KindName = 'project' | 'proxy_record' | 'role' | 'feature_flag';

/** How a field's values are compared (see src/plan/normalize.ts for every rule). */
export type CompareRule = 'plain' | 'decimal' | 'integer' | 'domain' | 'untyped';

export interface FieldSpec {
  compare: CompareRule;
  sensitive: boolean;
}

/** Where an item lives: every item is in an organization; feature flags also in a project. */
export interface Scope { organization: string; project: number | null }

export interface HttpCall { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: Record<string, unknown> }

export type LiveRecord = Record<string, unknown>;

export interface ResourceKind {
  readonly name: KindName;
  /** Key of the list in the configuration file (`projects`, `roles`, …). */
  readonly configKey: string;
  /** Key under `prune:` that makes the configuration own this kind; absent when it cannot be pruned. */
  readonly pruneKey?: 'proxy_records' | 'roles' | 'feature_flags';
  /** The identity field in the file and in API records. */
  readonly identityField: string;
  /** Parent of the item's collection. */
  readonly parent: 'organization' | 'project';
  /** `list`: one paginated list per collection; `get`: one GET per declared item (projects). */
  readonly read: 'list' | 'get';
  readonly canCreate: boolean;
  /** Managed fields (everything writable but the identity), from the JSON Schema. */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /**
   * Inside object fields, per field: defaults the API fills in when a file leaves them out
   * (payloads: {}), ignored while empty and undeclared, and values the API computes itself
   * (a condition's sort_key), always ignored when undeclared. See dropServerKeys.
   */
  readonly serverAddedKeys?: Readonly<Record<string, readonly string[]>>;
  readonly computedKeys?: Readonly<Record<string, readonly string[]>>;
  /** Statuses the real API is known to answer with on create / delete. */
  readonly createStatuses: readonly number[];
  readonly deleteStatuses: readonly number[];

  /** Canonical identity key, as it appears in addresses (domain lower-cased, …). */
  displayKey(raw: unknown): string;
  /** Key used to match desired and live items (case-insensitive names, …). */
  matchKey(displayKey: string): string;
  collectionPath(scope: Scope): string;
  itemPath(scope: Scope, id: string | number): string;
  /** The API id of a live record (UUID or integer). */
  liveId(record: LiveRecord): string | number;
  /** Live records that represent deleted items (soft-deleted flags), ignored entirely. */
  isGone(record: LiveRecord): boolean;
  createCall(scope: Scope, key: string, fields: Record<string, unknown>): HttpCall;
  updateCall(scope: Scope, id: string | number, fields: Record<string, unknown>): HttpCall;
  deleteCall(scope: Scope, id: string | number): HttpCall;
}
