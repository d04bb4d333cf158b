// Who changed a drifted item, and when, from its activity log entries (newest first, as the
// API answers them): per drifted field, the newest entry that changed that field, else the
// item's newest entry. Pure: the entries are read elsewhere (src/usecases/attribute.ts).

/** Who made the change a drifted field shows, and when (names of the plan's JSON contract). */
export interface Attribution {
  /** The acting user's email (else their first name), or `system`. */
  by: string;
  /** When, as the API dated it (ISO 8601). */
  at: string;
  /** The entry's activity: `updated`, `created`, `deleted`. */
  activity: string;
  /** The field the entry changed; null when the log names no change of this field (the item's newest entry). */
  field: string | null;
}

/** One activity log entry, as far as attribution reads it (anything else is ignored). */
export interface ActivityEntry {
  user?: { email?: unknown; first_name?: unknown } | null;
  is_system?: unknown;
  activity?: unknown;
  created_at?: unknown;
  detail?: { changes?: unknown; name?: unknown; type?: unknown } | null;
}

/** Whether an entry is of the kind's (ActivitySpec.type: holdouts logged under the experiments' scope say so). */
export function entryOfKind(spec: { type?: string | null }, entry: ActivityEntry): boolean {
  return spec.type === undefined || (entry.detail?.type ?? null) === spec.type;
}

function actor(entry: ActivityEntry): string | undefined {
  const user = entry.user;
  if (user && typeof user === 'object') {
    if (typeof user.email === 'string' && user.email !== '') return user.email;
    if (typeof user.first_name === 'string' && user.first_name !== '') return user.first_name;
  }
  return entry.is_system === true || !user ? 'system' : undefined;
}

function fieldsChanged(entry: ActivityEntry): string[] {
  const changes = entry.detail?.changes;
  if (!Array.isArray(changes)) return [];
  return changes.flatMap((c) => (c && typeof c === 'object' && typeof (c as { field?: unknown }).field === 'string' ? [(c as { field: string }).field] : []));
}

function attribution(entry: ActivityEntry, field: string | null): Attribution | undefined {
  const by = actor(entry);
  if (by === undefined || typeof entry.created_at !== 'string') return undefined;
  return { by, at: entry.created_at, activity: typeof entry.activity === 'string' ? entry.activity : 'updated', field };
}

/** The top-level field a change path names (`filters`, `session_replay_config.x` → `session_replay_config`). */
export function topField(path: string): string {
  return path.split(/[.[]/)[0] ?? path;
}

/**
 * Per drifted field path, its attribution; an empty map when the entries name nothing usable.
 * `fields` empty (an item to delete or restore) attributes the item as a whole under the key ''.
 */
export function attribute(entries: readonly ActivityEntry[], fields: readonly string[]): Map<string, Attribution> {
  const out = new Map<string, Attribution>();
  const newest = entries.map((e) => attribution(e, null)).find((a) => a !== undefined);
  if (fields.length === 0) {
    if (newest) out.set('', newest);
    return out;
  }
  for (const path of fields) {
    const field = topField(path);
    const entry = entries.find((e) => fieldsChanged(e).includes(field) && attribution(e, field) !== undefined);
    const found = entry ? attribution(entry, field) : newest;
    if (found) out.set(path, found);
  }
  return out;
}

/**
 * The attributions of one change from its item's entries (newest first): per drifted field of an
 * update, else for the item as a whole. `id` null: the item is missing from live state, and its
 * newest deletion under its identity (`identity`, compared as the kind compares keys) says who.
 */
export function attributeItem(change: { action: string; fields: ReadonlyArray<{ path: string }> }, kind: { matchKey(key: string): string },
  id: string | number | null, identity: string | undefined, entries: readonly ActivityEntry[]): Map<string, Attribution> {
  const fields = change.action === 'update' ? change.fields.map((f) => f.path) : [];
  const own = id !== null ? entries : entries.filter((e) => e.activity === 'deleted'
    && typeof e.detail?.name === 'string' && kind.matchKey(e.detail.name) === kind.matchKey(identity ?? ''));
  return attribute(own, fields);
}

/** `2026-11-21T14:03:12.123Z` → `2026-11-21 14:03 UTC` (as given when it is not a date). */
export function attributionTime(at: string): string {
  const t = Date.parse(at);
  if (Number.isNaN(t)) return at;
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const VERB: Readonly<Record<string, string>> = { created: 'created', deleted: 'deleted' };

/**
 * The words beside a drifted field: "changed by alice@example.com at 2026-11-21 14:03 UTC";
 * when the log names no change of that field, what it says of the item ("item last changed
 * by …"). For an item as a whole (`item`): "created by …", "deleted by …", "last changed by …".
 */
export function attributionText(a: Attribution, item = false): string {
  const when = attributionTime(a.at);
  if (item) return `${VERB[a.activity] ?? 'last changed'} by ${a.by} at ${when}`;
  if (a.field === null) return `item ${VERB[a.activity] ?? 'last changed'} by ${a.by} at ${when}`;
  return `changed by ${a.by} at ${when}`;
}

/** Per change address: attributions per field path ('' for the item as a whole). */
export type FoundAttributions = ReadonlyMap<string, ReadonlyMap<string, Attribution>>;

interface Attributable {
  address: string;
  fields: Array<{ path: string; attribution?: Attribution }>;
  attribution?: Attribution;
}

/**
 * A new plan showing the attributions beside its changes (the plan it was given is left as it
 * was): each drifted field its own, each change the newest of its fields' (else the item's).
 */
export function withAttributions<P extends { changes: C[] }, C extends Attributable>(plan: P, found: FoundAttributions): P {
  if (found.size === 0) return plan;
  const changes = plan.changes.map((change) => {
    const byField = found.get(change.address);
    if (!byField) return change;
    const fields = change.fields.map((f) => {
      const a = byField.get(f.path);
      return a ? { ...f, attribution: a } : f;
    });
    const newest = [...fields.flatMap((f) => (f.attribution ? [f.attribution] : [])), ...(byField.has('') ? [byField.get('') as Attribution] : [])]
      .sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0))[0];
    return newest ? { ...change, fields, attribution: newest } : { ...change, fields };
  });
  return { ...plan, changes };
}
