// Invitations to an organization, as the real API keeps them (posthog/api/organization_invite.py):
// one per email and organization (a new one replaces the old), expired 3 days after it was made
// (INVITE_DAYS_VALIDITY), and turned into a membership when the invitee accepts. Accepting happens
// in the web app, so the sandbox offers it as POST /_sandbox/accept-invite/ {email, first_name?}:
// the user is created if unknown, joins every organization that has a pending invite for the
// email, at the invite's level, and those invites are used up.
import { validationError } from './errors.js';
import { uuidv7 } from './ids.js';
import { clone, type JsonObject } from './json.js';
import { addUser, memberships, newMembership, renderMembership } from './members.js';
import type { InviteState, SandboxState } from './state.js';
import type { SandboxStore } from './store.js';

export const DAY_MS = 86_400_000;
export const INVITE_DAYS = 3;
export const ACCEPT_INVITE_PATH = '/_sandbox/accept-invite/';

export function newInvite(organization: string, email: string, level: number, createdBy: number, at: string, firstName = '', message: string | null = null): InviteState {
  return { id: uuidv7(), organization, target_email: email, first_name: firstName, level, created_by: createdBy, created_at: at, updated_at: at, message };
}

export function isExpired(invite: InviteState, now: number): boolean {
  return Date.parse(invite.created_at) < now - INVITE_DAYS * DAY_MS;
}

export function renderInvite(state: SandboxState, invite: InviteState, now: number): JsonObject {
  const creator = [state.user, ...state.users].find((u) => u.id === invite.created_by) ?? state.user;
  return {
    id: invite.id, target_email: invite.target_email, first_name: invite.first_name, emailing_attempt_made: false, level: invite.level,
    is_expired: isExpired(invite, now), created_by: clone(creator), created_at: invite.created_at, updated_at: invite.updated_at,
    message: invite.message, private_project_access: null,
  };
}

/** POST /_sandbox/accept-invite/: the invitee signs up (or logs in) and accepts every pending invite for the email. */
export function acceptInvite(body: JsonObject, store: SandboxStore): Promise<{ status: number; body: JsonObject }> {
  const { email, first_name: firstName } = body;
  if (typeof email !== 'string' || email === '') throw validationError('email', 'This field is required.', 'required');
  if (firstName !== undefined && typeof firstName !== 'string') throw validationError('first_name', 'Not a valid string.', 'invalid');
  return store.write((state) => {
    const now = store.clock.now();
    const mine = (state.invites ?? []).filter((i) => i.target_email.toLowerCase() === email.toLowerCase());
    const pending = mine.filter((i) => !isExpired(i, now));
    if (pending.length === 0) {
      throw validationError(null, mine.length > 0 ? 'This invite has expired. Please ask your admin for a new one.' : `There is no pending invite for ${email}.`, 'invalid_input');
    }
    memberships(state);
    const user = [state.user, ...state.users].find((u) => u.email.toLowerCase() === email.toLowerCase())
      ?? addUser(state, email, firstName || pending[0]?.first_name || email.split('@')[0] || email);
    const joined = new Date(now).toISOString();
    const added = pending.filter((i) => !memberships(state).some((m) => m.organization === i.organization && m.user_id === user.id))
      .map((i) => newMembership(i.organization, user.id, i.level, joined));
    memberships(state).push(...added);
    state.invites = (state.invites ?? []).filter((i) => !pending.includes(i));
    return { status: 200, body: { user: clone(user), memberships: added.map((m) => ({ organization: m.organization, ...renderMembership(state, m) })) } };
  });
}
