// The people part of a seed's organization: who belongs to it (`members`: emails of seed users;
// the sandbox user always does; without the list every user does, as before the list existed)
// and who is invited (`invites`: `{email, level: member|admin, age_days}`; `age_days` backdates
// an invite, so a test can hold one already expired).
import { DAY_MS, newInvite } from './invites.js';
import type { JsonObject } from './json.js';
import { memberships, newMembership, seedLevel } from './members.js';
import { LEVELS, type SandboxState } from './state.js';

type Fail = (where: string, message: string) => never;

export function seedPeople(state: SandboxState, organization: string, org: JsonObject, at: string, fail: Fail): void {
  const users = [state.user, ...state.users];
  let members = users;
  if (org.members !== undefined) {
    if (!Array.isArray(org.members) || !org.members.every((e) => typeof e === 'string')) fail(`${at}.members`, 'must be a list of user emails');
    const named = (org.members as string[]).map((email, i) => users.find((u) => u.email.toLowerCase() === email.toLowerCase())
      ?? fail(`${at}.members[${i}]`, `unknown user ${JSON.stringify(email)} (name it under users)`));
    members = users.filter((u) => u === state.user || named.includes(u));
  }
  memberships(state).push(...members.map((u) => newMembership(organization, u.id, seedLevel(state, u.id))));

  if (org.invites === undefined) return;
  if (!Array.isArray(org.invites)) fail(`${at}.invites`, 'must be a list of mappings');
  for (const [i, inv] of (org.invites as unknown[]).entries()) {
    const where = `${at}.invites[${i}]`;
    const value = (inv ?? {}) as JsonObject;
    if (typeof value.email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(value.email)) fail(`${where}.email`, 'must be an email address');
    const level = value.level ?? 'member';
    if (level !== 'member' && level !== 'admin') fail(`${where}.level`, 'must be member or admin');
    const age = value.age_days ?? 0;
    if (typeof age !== 'number' || !(age >= 0)) fail(`${where}.age_days`, 'must be a number of days, 0 or more');
    const created = new Date(Date.now() - (age as number) * DAY_MS).toISOString();
    (state.invites ??= []).push(newInvite(organization, value.email as string, LEVELS[level as 'member' | 'admin'], state.user.id, created));
  }
}
