// What a resource kind declares. The loader, reader, planner, applier, renderers and exporter
// are generic over this interface and never name a kind: what is special about one (its
// identity rules, a delete that needs an explicit allow, a preview such as a flag's blast
// radius, what a create returns that the user must see) is a datum or a hook here, declared
// in the kind's own module. A kind module is data plus a few small functions; adding a kind
// is one module and one line in src/resources/registry.ts.
import type { ActivitySpec, DescribeContext, DescribedLine } from './describe.js';
import type { SandboxModel } from '../sandbox/kind-model.js';
import type { FilePosition } from '../errors.js';

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
  /** Sent on create only, never read back (schema `x-create-only`): never compared or exported. */
  createOnly?: boolean;
  /** Why the API no longer takes this field (schema `x-deprecated`): validate warns, export leaves it out. */
  deprecated?: string;
}

export type MergeDepth = 'top' | 'nested';

/**
 * Where an item lives: every item is in an organization; items of a child kind also in their
 * parent item. `project` is the project an item belongs to (its parent, or its parent's
 * project; `project` is the name the plan's JSON contract gives that id), null for items of the
 * organization. `parent` names a parent that is not a project (a role holds its memberships):
 * its kind, its key in addresses, and its API id (null while the plan still creates it).
 */
export interface Scope { organization: string; project: number | null; parent?: ParentRef }

export interface ParentRef {
  kind: KindName;
  key: string;
  id: string | number | null;
  /** The parent's previous identity (`renamed_from`): its live record may still hold that one. */
  formerKey?: string;
  /** The parent is a project the plan creates: once it has an id, that id is the scope's project. */
  project?: true;
  /** The parent item's own key, where its items' addresses name it otherwise (a new project's alias). */
  item?: string;
  /** Addresses name the parent's kind too (`PROJECT/dashboard/NAME`): the kind may sit under parents of several kinds. */
  tagged?: true;
}

/** The kinds whose items may hold a kind's items (none for a top-level kind). */
export function parentNames(kind: Pick<ResourceKind, 'parent' | 'alsoUnder'>): readonly KindName[] {
  return kind.parent === 'organization' ? [] : [kind.parent, ...(kind.alsoUnder ?? [])];
}

/** Whether a kind's items may sit inside items of the kind named `parent`. */
export function isChildOf(kind: Pick<ResourceKind, 'parent' | 'alsoUnder'>, parent: KindName): boolean {
  return kind.parent === parent || (kind.alsoUnder?.includes(parent) ?? false);
}

/** The address key of the parent item itself (the change that creates it). */
export function parentItemKey(parent: ParentRef): string {
  return parent.item ?? parent.key;
}

/** The address key of a scope's parent item: `PROJECT/NAME` for a parent inside a project (an insight), else its own key. */
export function parentAddressKey(scope: Scope): string | undefined {
  const parent = scope.parent;
  if (!parent) return undefined;
  return scope.project !== null && parent.project !== true ? `${scope.project}/${parentItemKey(parent)}` : parentItemKey(parent);
}

/** The scope once its parent has an id (read from its list, or given by the create that made it). */
export function withParentId(scope: Scope, id: string | number): Scope {
  const parent = scope.parent;
  if (!parent) return scope;
  return parent.project ? { organization: scope.organization, project: Number(id) } : { ...scope, parent: { ...parent, id } };
}

/** The part of an item's address that names its parent: `111` (a project), `Engineers` (a role), null for the organization. */
export function parentKeyOf(scope: Scope): string | null {
  // A parent inside a project (an insight's alerts): `PROJECT/INSIGHT`.
  if (scope.parent) {
    const key = scope.parent.tagged ? `${scope.parent.kind}/${scope.parent.key}` : scope.parent.key;
    return scope.project !== null && scope.parent.project !== true ? `${scope.project}/${key}` : key;
  }
  return scope.project === null ? null : String(scope.project);
}

/** An item's address key within its organization: `KEY`, or `PARENT/KEY`. */
export function keyInScope(scope: Scope, key: string): string {
  const parent = parentKeyOf(scope);
  return parent === null ? key : `${parent}/${key}`;
}

/**
 * Where a kind accepts a reference by name (`{ cohort: Staff }`) instead of the id the API takes:
 * in `field`, at the objects `path` reaches (dotted steps below the field; `[]` steps into each
 * item of a list, `**` into every object at any depth), those whose keys hold the `when` values,
 * the value of `key` names an item of `kind` of the same project. The API writes that id as a
 * number, or (`as: 'string'`) as its decimal string. An empty `key` means the value the path
 * reaches is itself the reference (an experiment's `holdout: { experiment_holdout: NAME }`).
 */
export interface ReferenceSite {
  /** With `path` and `key` both '': the field's whole value is the reference (a survey's `linked_flag: { feature_flag: KEY }`). */
  field: string;
  path: string;
  when?: Readonly<Record<string, string>>;
  key: string;
  kind: KindName;
  as?: 'number' | 'string';
}

/**
 * A live field that holds the API id of another kind's item (an access rule's `role`), where the
 * file does not write it as a reference by name: the change that removes it runs before a delete
 * of that item (the API refuses a rule for a role that is gone). `by`: the referred record's field
 * that holds the id (default: its liveId).
 */
export interface LiveReference {
  field: string;
  kind: KindName;
  by?: string;
}

export interface HttpCall { method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'; path: string; body?: Record<string, unknown> }

export type LiveRecord = Record<string, unknown>;

/** The part of the API port a kind's hooks may call (src/http/port.ts has the whole port). */
/** What a kind's prepare sees of a declared item. */
export interface PreparedItem {
  fields: Record<string, unknown>;
  ensure: 'present' | 'absent';
  project: number | null;
  /** Fields (and keys of keyed fields: `inputs.token`) whose value came through ${env:…}. */
  interpolated: readonly string[];
  position: FilePosition;
}

/** A message at a line of the files. */
export interface Located { position: FilePosition; message: string }

export interface KindPort {
  request<T = unknown>(method: HttpCall['method'], path: string, options?: { body?: unknown; okStatuses?: number[]; idempotent?: boolean }): Promise<{ status: number; body: T }>;
  /** Every item of a list, following its `next` links as the client does (on the API's own host only). */
  listAll<T = Record<string, unknown>>(path: string): Promise<T[]>;
}

export interface BlastRadius {
  affected: number;
  total: number;
  /** What is counted, in plural ("users", or the group type of a group-aggregated flag); default users. */
  unit?: string;
  /** The item is off after the change: it reaches no one (`affected` is 0) … */
  inactive?: true;
  /** … and its conditions would reach this many once it is on. */
  when_enabled?: number;
}

/**
 * What a kind's preview adds to a planned change, shown beside it in every rendering (the
 * names are those of the plan's JSON contract). New kinds of annotation get a field here.
 */
export interface ChangeAnnotations {
  /** Feature flags whose release conditions change: how many users the new conditions reach. */
  blast_radius?: BlastRadius;
  /** The API sends a delivery at once when this change is made (a subscription created enabled, its recipients changed). */
  sends_delivery?: true;
  /** Addresses of items the API deletes with this change, silently (an insight's alerts). */
  also_deletes?: string[];
  /** Words said beside the change in every rendering (a recipient added again is invited again). */
  notes?: string[];
}

/** A planned create or update, as a kind's preview sees it. */
export interface PreviewInput {
  /** The change's address, for warnings. */
  address: string;
  /** Deletes only for kinds whose `previewActions` name them. */
  action: 'create' | 'update' | 'delete';
  scope: Scope;
  /** The identity value as the API takes it. */
  identity: string;
  /** Declared values of the changed fields, unredacted. */
  values: Record<string, unknown>;
  /** Paths of the fields the change sets. */
  changed: readonly string[];
  /** The live record (updates): what the change leaves as it is. */
  live?: LiveRecord;
}

export interface PreviewResult { annotations?: ChangeAnnotations; warning?: string }

/** A planned create or update as a kind's prepareSends sees it: `values` (what it sends) may be completed in place. */
export interface SentChange {
  address: string;
  action: 'create' | 'update';
  scope: Scope;
  values: Record<string, unknown>;
  live?: LiveRecord;
}

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
  items: ReadonlyArray<{ key: string; ensure: 'present' | 'absent'; fields: Record<string, unknown>; position?: unknown; pin?: string | number }>;
  /** Live records (gone ones aside). */
  records: readonly LiveRecord[];
  /** Live records the kind's `isGone` says are gone (a deleted flag still listed). */
  gone: readonly LiveRecord[];
  changes: readonly ChangeView[];
  /** What the scope's list said besides its records (an organization's `max_proxy_records`), if anything. */
  meta?: Readonly<Record<string, unknown>>;
  /**
   * `drift`: the plan reports what differs and is never applied, so what apply would refuse (an
   * experiment someone launched, which the file still calls a draft) is drift to show, not an error.
   */
  purpose?: 'plan' | 'drift';
}

export interface ScopeCheck {
  warnings?: string[];
  /** A plan-time error (the configuration asks for something the API cannot do). */
  error?: string;
  /** Where the error is: the declared item's position (`ScopeView.items[].position`). */
  errorAt?: unknown;
}

/** Something that holds a live item, so that it is never pruned (an experiment holding a flag). */
export interface HeldBy {
  /** What holds it (`experiment`, `survey`, a kind's name, …): named in messages with underscores as spaces. */
  kind: string;
  id: string | number;
  /** Its name where the API says it, else null (then messages name it by id). */
  name: string | null;
}

/** What a kind's `heldBy` sees of one scope. */
export interface HoldView {
  /** Live records (gone and held-back ones aside). */
  records: readonly LiveRecord[];
  /** Declared items of the kind in the scope (every one, targeted or not). */
  items: ScopeView['items'];
  /** Whether the files prune the kind in the scope. */
  prune: boolean;
  /**
   * The kinds of the kind's `heldByKinds` in the same scope, where their collections were read:
   * their live records (gone ones aside), declared items, and whether the files prune them.
   */
  holders?: ReadonlyMap<KindName, Omit<HoldView, 'holders'>>;
}

/** An item another item refers to, as a kind's `refusesReference` sees it: its identity, and its fields (declared over live). */
export interface ReferredItem { name: string; fields: Record<string, unknown> }

/** Where a kind's offline rule found a problem in one declared entry as written. */
export interface EntryProblem {
  /** Keys and indexes below the entry (`['filters', 'groups', 0, 'variant']`). */
  path: ReadonlyArray<string | number>;
  /** One line that says what the API would do with it. */
  message: string;
  /** The value at the path (default), or its key (an unknown or misplaced key). */
  at?: 'key' | 'value';
  /**
   * A warning, not an error: 'always', or 'literal' for one that holds only where the value was
   * written in the file (a secret input's literal value), not where it came through ${env:…}.
   */
  warning?: 'always' | 'literal';
}

/** What a create answered that the user must see: fields of the apply report, and lines for people. */
export interface CreatedReport {
  /** Added to the change's outcome in the apply report (names of its JSON contract). */
  fields: { target_cname?: string; record_status?: string };
  /** Shown under the change in the text report. */
  notes: string[];
}

/**
 * A list read beside a kind's own, whose answer the kind needs to name or write its items (an
 * organization's invites beside its members; its members and roles, to name access grants by
 * email and role name). Read once per run by path, whoever asks; its answer reaches the kind's
 * `combine` and, under `meta.companions`, its hooks. `one`: a single object, not a list.
 */
export interface CompanionRead {
  name: string;
  path: string;
  one?: boolean;
  /** A key without the scope to read it (403) still plans: the answer is then undefined. */
  optional?: boolean;
}

/** What a kind's hooks see of its companions' answers (CompanionRead), by name. */
export type Companions = Readonly<Record<string, unknown>>;

/** The declared fields and the live record of the item a field is compared for. */
export interface ComparedItem {
  declared?: Record<string, unknown>;
  record?: LiveRecord;
}

/** What a kind decides for a declared item that has no live record yet (see ResourceKind.prepareCreate). */
export type PreparedCreate =
  | { values: Record<string, unknown> }
  /** Neither a change nor drift: a note saying what it waits for. */
  | { wait: string }
  /** A plan error at the item's line. */
  | { error: string };

/** What a kind's prepareCreate sees besides the item. */
export interface PrepareContext {
  companions: Companions;
  /** Whether the files declare an item of a kind present in the organization. */
  declared(kind: KindName, key: string): boolean;
  /**
   * The id of an organization-level item of a kind that this plan creates (a new role), as a
   * value apply fills in once it is created; undefined when the plan creates no such item.
   */
  createdId(kind: KindName, key: string): unknown;
  /** The keys the files declare present for an organization-level kind (for "did you mean …?"). */
  declaredKeys?(kind: KindName): readonly string[];
}

/** An entry of a kind's list as a file writes it, where the list is not a list (see ResourceKind.entriesOf). */
export interface WrittenEntry {
  entry: Record<string, unknown>;
  /** Keys below the kind's key in its parent (`['roles', 'Engineers']`): where the entry is written. */
  path: ReadonlyArray<string | number>;
}

export interface ResourceKind {
  readonly name: KindName;
  /** How messages name one item of the kind ("proxy record"); default: the name without underscores. */
  readonly label?: string;
  /** Key of the list in the configuration file (`projects`, `roles`, …); also its key under `prune:`. */
  readonly configKey: string;
  /**
   * The object of the personal API key's scopes its API checks (`feature_flag` for
   * `feature_flag:read` and `:write`): a run checks the key has them before it reads.
   */
  readonly apiScope?: string;
  /** Optional: other read scopes a declared item's fields make the run need (a Slack subscription: `integration:read`, for its integration by name). */
  readScopesOf?(fields: Record<string, unknown>): readonly string[];
  /** Whether `prune: {<configKey>: true}` makes the configuration own this kind (delete what it does not declare). */
  readonly prunable: boolean;
  /** The identity field in the file and in API records. */
  readonly identityField: string;
  /** `organization`, or the name of the kind whose items hold this kind's items (and their lists). */
  readonly parent: 'organization' | KindName;
  /**
   * Other kinds whose items may hold this kind's items too (a subscription sits under a dashboard
   * or an insight): its addresses then name the parent's kind (`tagsParent`).
   */
  readonly alsoUnder?: readonly KindName[];
  /**
   * Whether items may also be declared once at the top level for several parent items
   * (`projects:`, `overrides:`), as well as inside each parent's entry.
   */
  readonly shared?: boolean;
  /** Its items are projects: the items nested in one live in that project (`Scope.project` holds its id). */
  readonly projectKind?: boolean;
  /** Inside its parent, the kind's items are written as a list of identities only (a role's `members: [EMAIL, …]`). */
  readonly identityList?: boolean;
  /** Its addresses name the parent's kind before the parent (`subscription:ORG/PROJECT/dashboard/NAME/TITLE`). */
  readonly tagsParent?: true;
  /**
   * `list`: one paginated list per collection; `get`: the list, and one GET per declared item
   * (lists carry only basic fields); `search`: one GET per declared item, by its identity in the
   * list's query (`searchQuery`), never the whole list (busy projects hold thousands).
   */
  readonly read: 'list' | 'get' | 'search';
  /**
   * The list answers basic fields only (a hog function's list leaves out inputs, masking and
   * mappings): the records a plan compares, and every record export or show writes, are read again
   * by GET (one request each), never the others.
   */
  readonly abridgedList?: boolean;
  /** `search` kinds: the list query that finds items of this identity (the API may answer more: matched exactly). */
  searchQuery?(key: string): string;
  readonly canCreate: boolean;
  /**
   * Optional, with canCreate: whether an item of this identity may be created (a project declared
   * by name may; one declared by id is adopted, never created, and missing is an error).
   */
  creatable?(key: string): boolean;
  /**
   * A field by which a file may name an item instead of its identity (a project by `name`): such
   * an item is the live item of that name, without regard to case (found before planning, its
   * address is then its identity's), or one the plan creates (addressed by that name until then).
   */
  readonly nameField?: string;
  /**
   * Optional, with nameField: why the organization may hold no more items (its plan allows one
   * project), from the organization's record and the live items, asked before anything is sent
   * when the plan would create one; undefined when it may.
   */
  createRefusal?(organization: LiveRecord, live: readonly LiveRecord[]): string | undefined;
  /** False for kinds hogsync only updates (event definitions exist once an event has arrived): never deleted. */
  readonly canDelete?: boolean;
  /** False: live items no file declares are not listed as unmanaged (a project's thousands of event definitions). */
  readonly listsUnmanaged?: boolean;
  /** False: `export` writes the kind only when `--kind` names it (reading it means reading every item). */
  readonly exportedByDefault?: boolean;
  /**
   * Optional: the fields export writes for a live record, from what the generic rules chose
   * (`data`): a hog function made from a template is written as its template_id and inputs.
   */
  exported?(record: LiveRecord, data: Record<string, unknown>): Record<string, unknown>;
  /** Which live items `export` writes (default every one): event definitions that say something. */
  exportable?(record: LiveRecord): boolean;
  /** The values the API gives fields nobody set: `export` leaves a field holding one out (it says nothing). */
  readonly unsetValues?: Readonly<Record<string, unknown>>;
  /**
   * The API does not keep identities unique (cohort names): two live items may match one
   * declared identity, which is then a plan error, and the file pins one with `id:` (an id always
   * wins over the identity, and lets it change).
   */
  readonly idPin?: boolean;
  /** Where the kind's fields accept references by name (see ReferenceSite). */
  readonly references?: readonly ReferenceSite[];
  /** Live fields that hold another kind's id besides the reference sites (see LiveReference). */
  readonly refersTo?: readonly LiveReference[];
  /** Why a missing item cannot be created, for the error naming it ("adopted by id, never created"). */
  readonly notCreated?: string;
  /**
   * Whether an item declared with `renamed_from` may take over the live item of its old
   * identity: one PATCH of the identity field, same id (a role keeps its members, a flag its history).
   */
  readonly renamable?: boolean;
  /** A delete of this kind is refused unless the command line names the item (`--allow-delete KIND/KEY`). */
  readonly deleteNeedsAllow?: boolean;
  /** Its model in the sandbox, declared beside it and loaded only by the sandbox (src/sandbox/models.ts). */
  readonly sandbox?: () => Promise<{ model: SandboxModel }>;
  /**
   * Optional: the identity of a live record or a declared entry when it is made of several
   * fields (a hog function's `TYPE/NAME`); default: the identity field's value. Undefined when
   * a part is missing.
   */
  identityOf?(entry: Readonly<Record<string, unknown>>): unknown;
  /** Optional, with `identityOf`: the fields one identity stands for (`{ type, name }`), as a file and the API write them. */
  identityFields?(key: string): Record<string, unknown>;
  /**
   * Optional: whether a live record no file declares is replaced by a declared item of the same
   * scope (a hog function whose type changed: the API cannot change a type, so the old one goes
   * and the new one is created). Such a record is planned for deletion, pruned or not.
   */
  replacedBy?(record: LiveRecord, items: ScopeView['items']): boolean;
  /**
   * Optional, for kinds whose parent item is fixed at create (a subscription's dashboard or
   * insight): why. A live item no file declares where it is, declared in the files under another
   * parent item of the project where it does not exist yet, has moved: it is deleted where it
   * was (and created where it goes), every parent item the project declares being read.
   */
  readonly parentFixed?: string;
  /**
   * Optional: the kind's items of every parent item in a project come in one list (the
   * collection's path without a parent), each held by the parent this names; one list per
   * project instead of one per parent item.
   */
  listedPerProject?(record: LiveRecord): { kind: KindName; id: string | number } | undefined;
  /**
   * Inside its parent, the kind's items are written some other way than a list (a project's
   * `access`: a mapping of rules): the entries it stands for. Each entry holds the identity
   * field; `ensure: 'absent'` where the file removes one (a grant written as null).
   */
  entriesOf?(value: unknown): WrittenEntry[];
  /**
   * With `entriesOf`: the value a file writes for these entries (their identity and fields), and
   * where each one sits in it (keys below the kind's key), for `export`.
   */
  writeEntries?(entries: ReadonlyArray<Record<string, unknown>>): { value: unknown; paths: ReadonlyArray<ReadonlyArray<string | number>> };
  /** Optional: a line `export` writes above a live item (an owner, whose level files never set). */
  exportNote?(record: LiveRecord): string | undefined;
  /**
   * Where a parent declares the kind's list (even empty), it is the parent's whole list (a role's
   * members): live items it leaves out are deleted, prune or not.
   */
  readonly wholeList?: boolean;
  /**
   * Optional: a create's or update's values as the request carries them, where the API takes ids
   * the companions' answers give (an early access feature's assignee: an email as the user's id,
   * a role's name as its id). The plan shows the values as the files write them.
   */
  requestValues?(values: Record<string, unknown>, companions: Companions): Record<string, unknown>;
  /** Lists the kind's hooks need beside its own (see CompanionRead). */
  companions?(scope: Scope): readonly CompanionRead[];
  /**
   * Optional: the kind's live records from its own list's answer and its companions' (an
   * organization's open invites folded in beside its members, access rules named by role and
   * email). Runs before records are checked, so it may give them their id and identity.
   */
  combine?(records: unknown[], companions: Companions): unknown[];
  /**
   * The list answers one object whose field holds every record, unpaginated (access controls:
   * `{"access_controls": [...]}`).
   */
  readonly listField?: string;
  /**
   * Optional: why a live record is never changed or removed by hogsync (an owner, the key's own
   * user), or undefined. A file asking to change or remove it is a plan error at its line; prune
   * leaves it unmanaged.
   */
  protects?(record: LiveRecord, companions: Companions): string | undefined;
  /**
   * Optional: why a live record stands for its declared item without being it yet (an open
   * invite of a member), or undefined: the item waits (a note), neither a change nor drift.
   */
  pendingNote?(record: LiveRecord): string | undefined;
  /**
   * Optional: for a declared item with no live record, the values its create sends besides the
   * declared ones (the member's user uuid a role membership is made with), or why it waits (its
   * member is only invited), or why it cannot be (an email no one has).
   */
  prepareCreate?(key: string, context: PrepareContext): PreparedCreate;
  /**
   * Optional: the organization-level item of another kind a declared item of this kind stands on
   * (a role membership's or an access grant's member, a grant's role), by that kind's key. A plan
   * that deletes it while the item is declared (`prune.members` removing a person a role still
   * lists) is a contradiction in the files: a plan error at the item's line, before anything is sent.
   */
  requires?(key: string): { kind: KindName; key: string } | undefined;
  /**
   * Optional: a create writes the item in place, addressed by what it is (an access rule's PUT,
   * keyed by its subject), so its answer need not carry an id. Otherwise a create answered
   * without the item's id failed: nothing can refer to the item.
   */
  createdInPlace?: true;
  /**
   * Optional: fields an item holds because of its identity, added to what a file declares for a
   * present item (an early access feature's flag, named by its key: `feature_flag_id` as
   * `{ feature_flag: KEY }`, a reference resolved like any other, placed at the identity's line).
   */
  impliedFields?(key: string): Record<string, unknown>;
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
  deleteNote?(record: LiveRecord | undefined): string;
  /**
   * Optional: a live record as the files see it, applied to every record read (list or GET):
   * fields the API answers under another name or shape (a survey's `linked_flag` object as the
   * flag's id, its `start_date`/`end_date` as its `status`; an experiment's variants, flag key and
   * lifecycle status). The record keeps its own fields too.
   */
  readAs?(record: LiveRecord): LiveRecord;
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
  /** The changes the kind's preview runs for (default creates and updates; an insight's: updates and deletes, what the API deletes with it). */
  readonly previewActions?: ReadonlyArray<'create' | 'update' | 'delete'>;
  /**
   * The preview names what the API does without a word beside the change (the alerts it deletes
   * with an insight, the flags a holdout rewrites): it runs for each such change whatever
   * `--no-preview` and `--max-previews` say, which bound the previews that only inform.
   */
  readonly previewAlways?: true;
  /**
   * Optional: what a planned change does that the change itself says (a subscription's create
   * sends a delivery), without asking the API: shown beside every change, previews or not.
   */
  annotate?(input: PreviewInput): ChangeAnnotations | undefined;
  /**
   * Optional: a refusal of the kind's list (its status and the API's message) in the user's words,
   * when the API refuses the kind to every key (older versions served alerts to no personal key).
   */
  refusedRead?(status: number, message: string): string | undefined;
  /**
   * Optional: what the kind reads of the API, once per run before anything is planned, to check,
   * mask and compare its declared items (a hog function's template schemas, for templates hogsync
   * does not carry). Answers plan errors and warnings, each at the line of the item concerned.
   */
  prepare?(items: readonly PreparedItem[], port: KindPort, context: { anyProject?: number }): Promise<{ problems: Located[]; warnings: Located[] }>;
  /**
   * Optional: what the kind reads of the API once the plan is made, for what its creates and
   * updates send (a Slack channel written by name: its id), only for those changes; completes
   * their values in place. Each problem is a plan error at the change's line, before anything is sent.
   */
  prepareSends?(sends: readonly SentChange[], port: KindPort): Promise<Array<{ address: string; message: string }>>;
  /** Optional: what the kind reads of the API before export or show writes its live records (a hog function's template schemas). */
  prepareExport?(records: ReadonlyArray<{ record: LiveRecord; scope: Scope }>, port: KindPort): Promise<void>;
  /** What the preview is called in progress lines and notes ("blast radius"). */
  readonly previewName?: string;
  /** The fields whose change the preview looks at (and asks the API about): other changes cost no request. */
  readonly previewFields?: readonly string[];
  /** Optional: what a create answered that the user must see (a proxy record's CNAME target). */
  created?(record: LiveRecord, identity: string): CreatedReport | undefined;
  /** Where the API's activity log keeps this kind's changes (drift attribution); absent when it keeps none. */
  readonly activity?: ActivitySpec;
  /**
   * Why the activity log cannot be trusted to name every change of this kind (it keeps none, or
   * not of every endpoint that changes it): `drift --since` then reads the kind in full instead
   * of what the log names. Every kind says it either way: a kind with no `activity` and no
   * `unlogged` is read in full too, and the registry test asks for one of them.
   */
  readonly unlogged?: string;
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
  /**
   * Per field: both sides rewritten in view of each other before they are compared (a hog
   * function's secret inputs, which the API reads back only as `{"secret": true}`). Runs before
   * the field's normalizer, if any.
   */
  readonly comparedTogether?: Readonly<Record<string, (declared: unknown, live: unknown, item?: ComparedItem) => [unknown, unknown]>>;
  /**
   * Mapping fields shown key by key (a hog function's `inputs`: `inputs.url`, `inputs.token`),
   * each with the keys that are write-only secrets of the item (never shown, never compared
   * unless resent).
   */
  readonly keyedFields?: Readonly<Record<string, (declared: Record<string, unknown> | undefined, live: LiveRecord | undefined) => ReadonlySet<string>>>;
  /**
   * Optional: items whose order in the files sets a field (transformations run in
   * `execution_order`): where none of them declares the field, each gets its rank (1, 2, …)
   * among the present items of its scope that `among` accepts, in the files' order.
   */
  readonly orderedBy?: { field: string; among(key: string): boolean };
  /** Fields whose secrets the API never reads back (a hog function's inputs): plans say `(sensitive, write-only)`. */
  readonly writeOnlyFields?: readonly string[];
  /** Values inside the declared fields that are secrets however written (a hog function's secret inputs): masked in all output. */
  secretValues?(fields: Record<string, unknown>): unknown[];
  /** Fields that hold secrets because of the item's other values (a flag with encrypted payloads). */
  secretFields?(declared: Record<string, unknown> | undefined, live: LiveRecord | undefined): readonly string[];
  /**
   * Where inside a secret field the secrets are (paths below the field, e.g. a flag's
   * `payloads.true`): export puts a placeholder at each, so the rest stays readable. Default:
   * the whole field.
   */
  secretParts?(field: string, value: unknown, record?: LiveRecord): string[][];
  /** Records the default list leaves out: matched to declared items, never unmanaged or pruned. */
  readonly heldBack?: HeldBack;
  /** Values a change must carry besides the changed ones (a flag archived must also be disabled). */
  completeValues?(values: Record<string, unknown>, live: LiveRecord | undefined): Record<string, unknown>;
  /** Pairs [before, after] of addresses among the kind's changes of one scope that apply must respect. */
  order?(changes: readonly ChangeView[]): Array<[string, string]>;
  /**
   * An item of another kind that each item owns, named by one of its fields (an experiment's
   * `feature_flag`: the key of the flag it makes): the files may not also declare that item
   * under its own kind (a validate error at its line, naming the owner).
   */
  readonly owns?: { field: string; kind: KindName };
  /**
   * Optional: calls that must follow a create's or an update's own call, in order, once it
   * succeeded (an experiment's launch/, pause/, end/): `id` is the item's (the create's answer).
   * A failure among them fails the change; the plan of the next run resumes from what was done.
   */
  followUps?(action: 'create' | 'update', scope: Scope, id: string | number, values: Record<string, unknown>, live: LiveRecord | undefined): HttpCall[];
  /**
   * Optional: an item's change that the API makes in separate calls, as ordered changes (an
   * experiment ended, then archived): the top-level fields of each step after the first, in
   * order; the first step makes the rest. Each step is planned, applied and reported on its own,
   * and runs only once the one before it was applied, so a failure between them leaves a plan
   * with only what is left. Later steps of a create are updates of the item it made.
   */
  laterSteps?(change: ChangeView): string[][];
  /**
   * Optional: what a 404 or 403 on the kind's list means (the organization's plan lacks the
   * feature): the plan is then an error naming the kind, before anything is sent.
   */
  readonly unavailable?: string;
  /** Plan-time checks of one scope: warnings, or an error for what the API would refuse. */
  check?(view: ScopeView): ScopeCheck;
  /**
   * Optional: the live records of one scope that something else holds (an experiment, a survey,
   * another item that depends on it), with what holds each. A held record is never pruned (it
   * stays unmanaged, saying what holds it), and `ensure: absent` on it is a plan error naming
   * the holder. Asked once per scope, only where a record would otherwise be pruned or listed.
   */
  heldBy?(view: HoldView): ReadonlyMap<LiveRecord, readonly HeldBy[]>;
  /**
   * Kinds whose items may hold this kind's items (a flag holds the cohorts it targets): where this
   * kind is pruned or declares items absent, their collections of the same scope are read too (as
   * lookups), and `heldBy` sees them (`HoldView.holders`).
   */
  readonly heldByKinds?: readonly KindName[];
  /**
   * Optional: why an item of kind `from` may not refer to this item (a flag may not target a cohort
   * with behavioral criteria), or undefined. `find` looks up an item of this kind that the referred
   * one refers to in turn (an id or `{ KIND: NAME }` as its fields hold it), in the same scope.
   * Asked by validate for references to items the files declare, and by the plan for every
   * reference it resolves; the answer is an error at the reference's file:line:col.
   */
  refusesReference?(from: KindName, target: ReferredItem, find: (value: unknown) => ReferredItem | undefined): string | undefined;
  /**
   * Optional: the kind's own offline rules for one declared entry (or one project's override of
   * a shared one) as written, beyond what the JSON Schema can say; validate reports each problem
   * at file:line:col. Must be cheap: it runs on every declared item of the kind.
   */
  validateEntry?(entry: Record<string, unknown>): EntryProblem[];
  /**
   * Keys that name a file whose text is another key's value (an insight's `sql_file` → `sql`):
   * read when the files are loaded, relative to the file that names it.
   */
  readonly textFiles?: Readonly<Record<string, string>>;
  /** Optional: an entry as the engine reads it, from shorthands the file may write (`sql:` for a HogQL chart's query). */
  expand?(entry: Record<string, unknown>): Record<string, unknown>;
  /**
   * Optional: whether a record of the kind's list is one of its items at all (an unnamed or
   * unsaved insight is not): the others are dropped as the list is read, never matched,
   * unmanaged or pruned.
   */
  listed?(record: LiveRecord): boolean;
  /**
   * Optional, with abridgedList: only declared items that declare one of these fields are read
   * in full (a dashboard's tiles, filters and variables: the list does not carry them).
   */
  readonly detailedFields?: readonly string[];
  /**
   * Optional: what a create or an update does after its own request succeeded, where the API
   * takes the change by other requests too (a dashboard's tiles: insights put on it through their
   * own `dashboards`, then layouts and text tiles). `record` is the write's answer; a failure
   * fails the change.
   */
  afterWrite?(write: { action: 'create' | 'update'; scope: Scope; id: string | number; values: Record<string, unknown>; record: LiveRecord }, port: KindPort): Promise<void>;
  /** A failed change's message, explained for the user (what may hold a key the list did not show). */
  explainFailure?(action: 'create' | 'update' | 'delete', message: string, status: number | undefined): string | undefined;
  /**
   * A refusal that clears by itself once the API finishes what it is doing (a record still
   * deleting holds a slot, a project is already being deleted): what it waits for, said beside
   * the failure; apply then says that running it again later converges.
   */
  waitFor?(action: 'create' | 'update' | 'delete', message: string, status: number | undefined): string | undefined;
}

/** Whether `drift --since` may learn of every change of the kind from the activity log (else it reads the kind in full). */
export function changesLogged(kind: ResourceKind): boolean {
  return kind.activity !== undefined && kind.unlogged === undefined;
}

/** The identity of a live record or a declared entry (see ResourceKind.identityOf). */
export function identityOf(kind: ResourceKind, entry: Readonly<Record<string, unknown>> | undefined | null): unknown {
  if (entry === undefined || entry === null) return undefined;
  return kind.identityOf ? kind.identityOf(entry) : entry[kind.identityField];
}

/** The fields an identity stands for, as a file writes them. */
export function identityFieldsOf(kind: ResourceKind, key: string): Record<string, unknown> {
  return kind.identityFields ? kind.identityFields(key) : { [kind.identityField]: key };
}

/** How messages name one item of a kind. */
export function labelOf(kind: ResourceKind): string {
  return kind.label ?? kind.name.replace(/_/g, ' ');
}

/** The label with its article: `a cohort`, `an action`. */
export function aLabelOf(kind: ResourceKind): string {
  const label = labelOf(kind);
  return /^[aeio]/i.test(label) ? `an ${label}` : `a ${label}`;
}
