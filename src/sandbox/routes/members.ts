// An organization's members and invites, as the real API answers them
// (posthog/api/organization_member.py, posthog/models/organization.py validate_update,
// posthog/models/user.py leave, posthog/api/organization_invite.py): members are listed (no GET
// of one), their level changed by PATCH and removed by DELETE, both by user uuid; invites are
// listed, created and deleted. Scopes organization_member:read/write.
import { notFound, permissionDenied, validationError } from '../errors.js';
import { newInvite, renderInvite } from '../invites.js';
import type { JsonObject } from '../json.js';
import { membershipOf, organizationMembers, removeMembership, renderMembership } from '../members.js';
import { paginate } from '../pagination.js';
import type { Handler, RequestContext, Route } from '../router.js';
import { LEVELS, type MembershipState, type OrganizationState, type SandboxState } from '../state.js';
import { integerChoiceRule, requireField, stringRule } from '../validation.js';
import { organizationOf } from './common.js';

const levelRule = integerChoiceRule(Object.values(LEVELS));

function caller(ctx: RequestContext, state: SandboxState): { org: OrganizationState; mine: MembershipState } {
  const org = organizationOf(ctx, state);
  // organizationOf refuses a key whose user is no member, so this is found.
  return { org, mine: membershipOf(state, org.id, ctx.key.user) as MembershipState };
}

function target(ctx: RequestContext, state: SandboxState, org: OrganizationState, mine: MembershipState): MembershipState {
  const uuid = ctx.params.user;
  if (uuid === '@me') return mine;
  const user = [state.user, ...state.users].find((u) => u.uuid === uuid);
  const found = user && membershipOf(state, org.id, user.id);
  if (!found) throw notFound();
  // OrganizationMemberObjectPermissions: editing or removing others needs an admin at least at their level.
  if (found.id !== mine.id) {
    if (mine.level < LEVELS.admin) throw permissionDenied('You can only edit others if you are an admin.');
    if (found.level > mine.level) throw permissionDenied('You can only edit others with level lower or equal to you.');
  }
  return found;
}

const render = (state: SandboxState) => (m: MembershipState) => renderMembership(state, m) ?? {};
const newestFirst = <T extends { joined_at?: unknown; created_at?: unknown }>(a: T, b: T) =>
  String(b.joined_at ?? b.created_at).localeCompare(String(a.joined_at ?? a.created_at));

const listMembers: Handler = (ctx) => ctx.store.read((state) => {
  const { org } = caller(ctx, state);
  return { status: 200, body: paginate([...organizationMembers(state, org.id)].sort(newestFirst), render(state), ctx.url) };
});

const updateMember: Handler = (ctx) => ctx.store.write((state) => {
  const { org, mine } = caller(ctx, state);
  const member = target(ctx, state, org, mine);
  if (ctx.body.level !== undefined) {
    const level = levelRule(ctx.body.level, 'level') as number;
    if (member.id === mine.id) throw permissionDenied("You can't change your own access level.");
    if (level === LEVELS.owner && mine.level !== LEVELS.owner) throw permissionDenied("You can only make another member owner if you're this organization's owner.");
    if (level > mine.level) throw permissionDenied('You can only change access level of others to lower or equal to your current one.');
    member.level = level;
    member.updated_at = new Date(ctx.store.clock.now()).toISOString();
  }
  return { status: 200, body: render(state)(member) };
});

const removeMember: Handler = (ctx) => ctx.store.write((state) => {
  const { org, mine } = caller(ctx, state);
  const member = target(ctx, state, org, mine);
  if (member.level === LEVELS.owner) throw validationError(null, 'Cannot leave the organization as its owner!', 'invalid');
  removeMembership(state, member);
  return { status: 204 };
});

const listInvites: Handler = (ctx) => ctx.store.read((state) => {
  const { org } = caller(ctx, state);
  const now = ctx.store.clock.now();
  const invites = (state.invites ?? []).filter((i) => i.organization === org.id).sort(newestFirst);
  return { status: 200, body: paginate(invites, (i) => renderInvite(state, i, now), ctx.url) };
});

const emailRule = stringRule({ max: 254 });
const firstNameRule = stringRule({ max: 30, allowBlank: true });

const createInvite: Handler = (ctx) => ctx.store.write((state) => {
  const { org, mine } = caller(ctx, state);
  const body: JsonObject = ctx.body;
  const raw = emailRule(requireField(body, 'target_email'), 'target_email') as string;
  const [local, domain, ...rest] = raw.split('@');
  if (!local || !domain || rest.length > 0 || /\s/.test(raw)) throw validationError('target_email', 'Enter a valid email address.', 'invalid');
  const email = `${local}@${domain.toLowerCase()}`;
  const firstName = body.first_name === undefined ? '' : firstNameRule(body.first_name, 'first_name') as string;
  const level = body.level === undefined ? LEVELS.member : levelRule(body.level, 'level') as number;
  if (level > mine.level) throw permissionDenied('You cannot invite a user with a higher permission level than your own.');
  const message = typeof body.message === 'string' ? body.message : null;
  const emails = new Set(organizationMembers(state, org.id).map((m) => [state.user, ...state.users].find((u) => u.id === m.user_id)?.email));
  if (emails.has(email)) throw validationError(null, 'A user with this email address already belongs to the organization.', 'invalid');
  // A new invite replaces every earlier one for the email, expired or not (and is sent again).
  state.invites = (state.invites ?? []).filter((i) => !(i.organization === org.id && i.target_email === email));
  const now = ctx.store.clock.now();
  const invite = newInvite(org.id, email, level, ctx.key.user, new Date(now).toISOString(), firstName, message);
  state.invites.push(invite);
  return { status: 201, body: renderInvite(state, invite, now) };
});

const deleteInvite: Handler = (ctx) => ctx.store.write((state) => {
  const { org } = caller(ctx, state);
  const invite = (state.invites ?? []).find((i) => i.id === ctx.params.id && i.organization === org.id);
  if (!invite) throw notFound();
  state.invites = (state.invites ?? []).filter((i) => i !== invite);
  return { status: 204 };
});

export const memberRoutes: readonly Route[] = [
  { pattern: '/api/organizations/:org/members/', methods: { GET: { scope: 'organization_member:read', handler: listMembers } } },
  {
    pattern: '/api/organizations/:org/members/:user/',
    methods: { PATCH: { scope: 'organization_member:write', handler: updateMember }, DELETE: { scope: 'organization_member:write', handler: removeMember } },
  },
  {
    pattern: '/api/organizations/:org/invites/',
    methods: { GET: { scope: 'organization_member:read', handler: listInvites }, POST: { scope: 'organization_member:write', handler: createInvite } },
  },
  { pattern: '/api/organizations/:org/invites/:id/', methods: { DELETE: { scope: 'organization_member:write', handler: deleteInvite } } },
];
