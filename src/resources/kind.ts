// What a resource kind declares. The loader, reader, planner, applier, renderers and exporter
// are generic over this interface and never name a kind: what is special about one (its
// identity rules, a delete that needs an explicit allow, a preview such as a flag's blast
// radius, what a create returns that the user must see) is a datum or a hook here, declared
// in the kind's own module. A kind module is data plus a few small functions; adding a kind
// is one module and one line in src/resources/registry.ts.
import type { ActivitySpec, DescribeContext, DescribedLine } from './describe.js';

export type { ActivitySpec, DescribeContext, DescribedLine } from './describe.js';

/** A kind's name (`project`, `feature_flag`, …): the first part of its addresses. */
export type KindName = string;

/** How a field's values are compared (see src/plan/normalize.ts for every rule). */
export type CompareRule = 'plain' | 'decimal' | 'integer' | 'domain' | 'untyped';

export interface FieldSpec {
  compare: CompareRule;
  sensitive: boolean;
  /**
   * The API merges a value sent for this field into what it stores instead of replacing it
   * (schema `x-merge`): `top` merges the top-level keys, `nested` also the keys of objects one
   * level down. A key the file no longer holds is sent as null, and inside the field a key that
   * is null compares equal to one that is absent.
   */
  merge?: MergeDepth;
  /** State of the web app rather than a setting (schema `x-ui-state`): export writes it only with --all-fields. */
  uiState?: boolean;
  /** Why the API no longer takes this field (schema `x-deprecated`): validate warns, export leaves it out. */
  deprecated?: string;
}

export type MergeDepth = 'top' | 'nested';

/**
 * Where an item lives: every item is in an organization; items of a child kind also in their
 * parent item, whose numeric id `project` holds (projects are the one parent kind today, and
 * `project` is the name the plan's JSON contract gives that id).
 */
export interface Scope { organization: string; project: number | null }

export interface HttpCall { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: Record<string, unknown> }

export type LiveRecord = Record<string, unknown>;

/** The part of the API port a kind's hooks may call (src/http/port.ts has the whole port). */
export interface KindPort {
  request<T = unknown>(method: HttpCall['method'], path: string, options?: { body?: unknown; okStatuses?: number[]; idempotent?: boolean }): Promise<{ status: number; body: T }>;
}

export interface BlastRadius {
  affected: number;
  total: number;
  /** What is counted, in plural ("users", or the group type of a group-aggregated flag); default users. */
  unit?: string;
}

/**
 * What a kind's preview adds to a planned change, shown beside it in every rendering (the
 * names are those of the plan's JSON contract). New kinds of annotation get a field here.
 */
export interface ChangeAnnotations {
  /** Feature flags whose release conditions change: how many users the new conditions reach. */
  blast_radius?: BlastRadius;
}

/** A planned create or update, as a kind's preview sees it. */
export interface PreviewInput {
  /** The change's address, for warnings. */
  address: string;
  action: 'create' | 'update';
  scope: Scope;
  /** The identity value as the API takes it. */
  identity: string;
  /** Declared values of the changed fields, unredacted. */
  values: Record<string, unknown>;
  /** Paths of the fields the change sets. */
  changed: readonly string[];
}

export interface PreviewResult { annotations?: ChangeAnnotations; warning?: string }

/** Records the API's default list leaves out (archived flags), read only where they matter. */
export interface HeldBack {
  /** Query of the list that holds them (`archived=true`). */
  query: string;
  /** Whether a live record is one of them. */
  holds(record: LiveRecord): boolean;
  /** Whether a change with these values makes its item one of them (an update setting archived). */
  holdsAfter(values: Record<string, unknown>): boolean;
}

/** A planned change of a kind, as its `order` and `check` hooks see it. */
export interface ChangeView {
  address: string;
  action: 'create' | 'update' | 'delete';
  /** The identity value as the API takes it. */
  identity: string;
  scope: Scope;
  /** The live record (updates and deletes). */
  live?: LiveRecord;
  /** The values the change sends. */
  values: Record<string, unknown>;
}

/** What a kind's `check` sees of one scope: declared items, live records, and the planned changes. */
export interface ScopeView {
  scope: Scope;
  /** Declared items of the kind in the scope: identity, fields, where declared. */
  items: ReadonlyArray<{ key: string; ensure: 'present' | 'absent'; fields: Record<string, unknown>; position?: unknown }>;
  /** Live records (gone ones aside). */
  records: readonly LiveRecord[];
  /** Live records the kind's `isGone` says are gone (a deleted flag still listed). */
  gone: readonly LiveRecord[];
  changes: readonly ChangeView[];
  /** What the scope's list said besides its records (an organization's `max_proxy_records`), if anything. */
  meta?: Readonly<Record<string, unknown>>;
}

export interface ScopeCheck {
  warnings?: string[];
  /** A plan-time error (the configuration asks for something the API cannot do). */
  error?: string;
}

/** What a create answered that the user must see: fields of the apply report, and lines for people. */
export interface CreatedReport {
  /** Added to the change's outcome in the apply report (names of its JSON contract). */
  fields: { target_cname?: string; record_status?: string };
  /** Shown under the change in the text report. */
  notes: string[];
}

export interface ResourceKind {
  readonly name: KindName;
  /** How messages name one item of the kind ("proxy record"); default: the name without underscores. */
  readonly label?: string;
  /** Key of the list in the configuration file (`projects`, `roles`, …); also its key under `prune:`. */
  readonly configKey: string;
  /** Whether `prune: {<configKey>: true}` makes the configuration own this kind (delete what it does not declare). */
  readonly prunable: boolean;
  /** The identity field in the file and in API records. */
  readonly identityField: string;
  /** `organization`, or the name of the kind whose items hold this kind's items (and their lists). */
  readonly parent: 'organization' | KindName;
  /** `list`: one paginated list per collection; `get`: one GET per declared item (lists carry only basic fields). */
  readonly read: 'list' | 'get';
  readonly canCreate: boolean;
  /** Why a missing item cannot be created, for the error naming it ("adopted by id, never created"). */
  readonly notCreated?: string;
  /**
   * Whether an item declared with `renamed_from` may take over the live item of its old
   * identity: one PATCH of the identity field, same id (a role keeps its members, a flag its history).
   */
  readonly renamable?: boolean;
  /** A delete of this kind is refused unless the command line names the item (`--allow-delete KIND/KEY`). */
  readonly deleteNeedsAllow?: boolean;
  /** Managed fields (everything writable but the identity), usually from the JSON Schema. */
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
  /** What deleting one item also deletes, said on every planned delete of the kind (a role's memberships). */
  readonly deleteNote?: string;
  /** Live records that represent deleted items (soft-deleted flags): absent for plan, drift, verify and export. */
  isGone(record: LiveRecord): boolean;
  createCall(scope: Scope, key: string, fields: Record<string, unknown>): HttpCall;
  /** `live`: the record as planned (for optimistic concurrency: what was read, its version). */
  updateCall(scope: Scope, id: string | number, fields: Record<string, unknown>, live?: LiveRecord): HttpCall;
  deleteCall(scope: Scope, id: string | number): HttpCall;

  /**
   * Optional preview of a planned create or update, asked of the API before anything changes
   * (a flag's blast radius). Returns nothing when there is nothing to say; a failure is a
   * warning of the plan (the hook words it), never an error.
   */
  preview?(input: PreviewInput, port: KindPort): Promise<PreviewResult | undefined>;
  /** Optional: what a create answered that the user must see (a proxy record's CNAME target). */
  created?(record: LiveRecord, identity: string): CreatedReport | undefined;
  /** Where the API's activity log keeps this kind's changes (drift attribution); absent when it keeps none. */
  readonly activity?: ActivitySpec;
  /**
   * Optional: a change of a field in the users' words (a flag's release conditions as the web
   * app shows them), for the text and Markdown renderings; undefined (or empty) leaves the
   * field to the generic diff.
   */
  describeField?(path: string, before: unknown, after: unknown, context: DescribeContext): DescribedLine[] | undefined;

  /**
   * Per field: how the kind compares its values, instead of the field's rule: the API's own
   * rewriting of the field applied to both sides (a flag's filters, its tags as a set).
   */
  readonly normalizers?: Readonly<Record<string, (value: unknown) => unknown>>;
  /** Fields that hold secrets because of the item's other values (a flag with encrypted payloads). */
  secretFields?(declared: Record<string, unknown> | undefined, live: LiveRecord | undefined): readonly string[];
  /**
   * Where inside a secret field the secrets are (paths below the field, e.g. a flag's
   * `payloads.true`): export puts a placeholder at each, so the rest stays readable. Default:
   * the whole field.
   */
  secretParts?(field: string, value: unknown): string[][];
  /** Records the default list leaves out: matched to declared items, never unmanaged or pruned. */
  readonly heldBack?: HeldBack;
  /** Values a change must carry besides the changed ones (a flag archived must also be disabled). */
  completeValues?(values: Record<string, unknown>, live: LiveRecord | undefined): Record<string, unknown>;
  /** Pairs [before, after] of addresses among the kind's changes of one scope that apply must respect. */
  order?(changes: readonly ChangeView[]): Array<[string, string]>;
  /** Plan-time checks of one scope: warnings, or an error for what the API would refuse. */
  check?(view: ScopeView): ScopeCheck;
  /** A failed change's message, explained for the user (what may hold a key the list did not show). */
  explainFailure?(action: 'create' | 'update' | 'delete', message: string, status: number | undefined): string | undefined;
  /**
   * A refusal that clears by itself once the API finishes what it is doing (a record still
   * deleting holds a slot, a project is already being deleted): what it waits for, said beside
   * the failure; apply then says that running it again later converges.
   */
  waitFor?(action: 'create' | 'update' | 'delete', message: string, status: number | undefined): string | undefined;
}

/** How messages name one item of a kind. */
export function labelOf(kind: ResourceKind): string {
  return kind.label ?? kind.name.replace(/_/g, ' ');
}
