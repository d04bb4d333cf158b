// Members of an organization: identity = email, without regard to case. The API keeps two
// lists: members (a level each: 1 member, 8 admin, 15 owner; changed and removed by the user's
// uuid) and invites. A declared email that is not a member is invited (POST invites/); while its
// invite is open the member is `invited` (a note, no change, no drift); an expired invite is gone
// and the plan sends it again. Owners and the key's own user are never changed or removed.
import { editDistance } from '../../config/suggest.js';
import type { Companions, LiveRecord, ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

const organization = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/`;
const membersPath = (s: Scope) => `${organization(s)}members/`;
const invitesPath = (s: Scope) => `${organization(s)}invites/`;
/** The key's own user: never changed or removed (one request per run, shared by whoever asks). */
export const ME_PATH = '/api/users/@me/';

const LEVELS: Readonly<Record<string, number>> = { member: 1, admin: 8, owner: 15 };
const LEVEL_NAMES: Readonly<Record<number, string>> = { 1: 'member', 8: 'admin', 15: 'owner' };
/** An invite's id in addresses of deletes: the API removes an invite and a member at different paths. */
const INVITE = 'invite:';

const fields = lazy(() => fieldsFromSchema('member', ['email']));
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined);

/** Whether a live record is an invite (folded in beside the members), not a member. */
export function isInvite(record: LiveRecord): boolean {
  return typeof record.target_email === 'string' && record.user === undefined;
}

/** The email of a member record (its user's) or of an invite. */
export function emailOf(record: Readonly<Record<string, unknown>>): unknown {
  if (typeof record.target_email === 'string') return record.target_email;
  return isObject(record.user) ? record.user.email : record.email;
}

/** The user uuid of a member record, as the API addresses a member. */
export function userUuidOf(record: Readonly<Record<string, unknown>>): unknown {
  return isObject(record.user) ? record.user.uuid : undefined;
}

/** Levels as files write them: the API's numbers are named (`8` is `admin`). */
function levelName(value: unknown): unknown {
  return typeof value === 'number' ? LEVEL_NAMES[value] ?? value : value;
}

const levelNumber = (value: unknown) => (typeof value === 'string' ? LEVELS[value] ?? value : value);

/**
 * `did you mean "…"? `: the member's or declared email closest to one that is neither. Emails
 * share their domain, so the typos allowed are counted by the name before the @ alone (zed@ is
 * not bob@ misspelt, alise@ is alice@).
 */
export function nearestEmail(email: string, members: readonly unknown[], declared: readonly string[]): string {
  const emails = [...members.flatMap((m) => (isObject(m) && typeof emailOf(m) === 'string' ? [String(emailOf(m))] : [])), ...declared];
  const local = email.split('@')[0] ?? email;
  const budget = Math.min(2, Math.max(1, Math.floor(local.length / 3)));
  let near: string | undefined;
  let best = budget + 1;
  for (const candidate of emails) {
    const distance = editDistance(email.toLowerCase(), candidate.toLowerCase());
    if (distance > 0 && distance < best) [near, best] = [candidate, distance];
  }
  return near === undefined ? '' : `did you mean "${near}"? `;
}

/** Open invites of emails that are not members, the newest per email (a second invite replaces the first). */
export function openInvites(members: readonly unknown[], invites: unknown): Array<Record<string, unknown>> {
  const memberEmails = new Set(members.map((m) => (isObject(m) ? lower(emailOf(m)) : undefined)).filter((e) => e !== undefined));
  const newest = new Map<string, Record<string, unknown>>();
  for (const invite of Array.isArray(invites) ? invites : []) {
    if (!isObject(invite) || typeof invite.target_email !== 'string') continue;
    const email = invite.target_email.toLowerCase();
    if (memberEmails.has(email)) continue;
    const seen = newest.get(email);
    if (!seen || String(invite.created_at ?? '') > String(seen.created_at ?? '')) newest.set(email, invite);
  }
  return [...newest.values()];
}

/** Why a member is never changed or removed: an owner, or the key's own user. */
function protects(record: LiveRecord, companions: Companions): string | undefined {
  if (isInvite(record)) return undefined;
  if (record.level === LEVELS.owner) return 'is an owner of the organization';
  const me = companions.me;
  if (isObject(me) && typeof me.uuid === 'string' && me.uuid === userUuidOf(record)) return "is the API key's own user";
  return undefined;
}

export const member: ResourceKind = {
  name: 'member',
  configKey: 'members',
  apiScope: 'organization_member',
  prunable: true,
  identityField: 'email',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  get fields() { return fields(); },
  identityOf: emailOf,
  normalizers: { level: levelName },
  createStatuses: [200, 201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw).trim(),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: membersPath,
  itemPath: (s, id) => `${membersPath(s)}${encodeURIComponent(String(id))}/`,
  companions: (s) => [{ name: 'invites', path: invitesPath(s) }, { name: 'me', path: ME_PATH, one: true, optional: true }],
  combine: (members, companions) => [...members, ...openInvites(members, companions.invites)],
  liveId: (r) => (isInvite(r) ? `${INVITE}${String(r.id)}` : String(userUuidOf(r) ?? r.id)),
  // An expired invite holds nothing: the plan invites again (and an undeclared one is no one's).
  isGone: (r) => isInvite(r) && r.is_expired === true,
  pendingNote: (r) => (isInvite(r)
    ? `invited${typeof r.created_at === 'string' ? ` on ${r.created_at.slice(0, 10)}` : ''}: waiting for ${String(r.target_email)} to accept the invite (no change until they join; an expired invite is sent again)`
    : undefined),
  protects,
  // Levels by name; an owner's is not written (files never set owners), a comment says why.
  exported: (record, data) => {
    const { level: _level, ...rest } = data;
    return record.level === LEVELS.owner ? rest : { ...rest, level: levelName(record.level) };
  },
  exportNote: (record) => (record.level === LEVELS.owner ? 'an owner of the organization: owners are set in the web app, never by files' : undefined),
  deleteNote: (r) => (r && isInvite(r) ? 'the open invite is cancelled' : 'removing a member also takes them out of every role and removes the access granted to them'),
  createCall: (s, key, values) => ({ method: 'POST', path: invitesPath(s), body: { target_email: key, level: levelNumber(values.level ?? 'member') } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: member.itemPath(s, id), body: { level: levelNumber(values.level) } }),
  deleteCall: (s, id) => {
    const raw = String(id);
    return raw.startsWith(INVITE)
      ? { method: 'DELETE', path: `${invitesPath(s)}${encodeURIComponent(raw.slice(INVITE.length))}/` }
      : { method: 'DELETE', path: member.itemPath(s, raw) };
  },
  created: (record, email) => ({ fields: {}, notes: [`invited ${email}${typeof record.level === 'number' ? ` as ${String(levelName(record.level))}` : ''}: they join once they accept the invite (it expires in 3 days)`] }),
  unlogged: 'the activity log does not record organization membership changes',
};
