// A project's integrations in the sandbox, as far as Slack subscriptions need them
// (posthog/api/integration.py IntegrationViewSet, scope object `integration`; served under
// /api/environments/ and /api/projects/):
//   - the list is paginated; each integration answers `kind`, `config` (a Slack one's workspace
//     under `config.team`) and `display_name` (a Slack one's workspace name);
//   - GET …/integrations/{id}/channels/ answers the channels the Slack app sees,
//     `{"channels": [{id, name, is_private, …}], "lastRefreshedAt", "has_more"}`, a page of
//     `limit` (default 50, at most 200) from `offset` (SlackChannelsQuerySerializer);
//   - integrations are connected by OAuth in the web app, never through a personal API key: the
//     sandbox holds only what its seed gives (`integrations:` under a project).
import { notFound } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import type { JsonObject } from '../../sandbox/json.js';
import { recordsOf, type SeedModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import type { Handler, Route } from '../../sandbox/router.js';
import { projectOf } from '../../sandbox/routes/common.js';
import { seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';

export const INTEGRATIONS = 'integrations';
const KINDS = ['slack', 'github', 'hubspot', 'salesforce', 'linear', 'google-ads', 'email'];

export const integrationsOf = (state: SandboxState) => recordsOf(state, { collection: INTEGRATIONS });

/** The integration of this id in the project, if it has one (another project's is not found). */
export function integrationIn(state: SandboxState, project: number | undefined, id: unknown): JsonObject | undefined {
  return integrationsOf(state).find((i) => i.id === id && i.project === project);
}

function render(record: JsonObject): JsonObject {
  const team = (record.config as JsonObject | undefined)?.team as JsonObject | undefined;
  return {
    id: record.id, kind: record.kind, config: record.config ?? {}, created_at: record.created_at, created_by: null, errors: '',
    display_name: record.kind === 'slack' ? String(team?.name ?? record.integration_id) : String(record.integration_id),
  };
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  return { status: 200, body: paginate(integrationsOf(state).filter((i) => i.project === project.id), render, ctx.url) as unknown as JsonObject };
});

const one: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const found = integrationIn(state, project.id, Number(ctx.params.id));
  if (!found) throw notFound();
  return { status: 200, body: render(found) };
});

/** A page of the Slack app's channels (older versions answer them all and ignore limit and offset). */
const channels: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const found = integrationIn(state, project.id, Number(ctx.params.id));
  if (!found) throw notFound();
  const all = Array.isArray(found.channels) ? found.channels as JsonObject[] : [];
  const q = ctx.url.searchParams;
  const limit = Math.min(Math.max(Number(q.get('limit') ?? 50) || 50, 1), 200);
  const offset = Math.max(Number(q.get('offset') ?? 0) || 0, 0);
  return { status: 200, body: { channels: all.slice(offset, offset + limit), lastRefreshedAt: found.created_at as string, has_more: offset + limit < all.length } };
});

export const integrationRoutes: readonly Route[] = ['projects', 'environments'].flatMap((root) => [
  { pattern: `/api/${root}/:project/integrations/`, methods: { GET: { scope: 'integration:read', handler: list } } },
  { pattern: `/api/${root}/:project/integrations/:id/channels/`, methods: { GET: { scope: 'integration:read', handler: channels } } },
  { pattern: `/api/${root}/:project/integrations/:id/`, methods: { GET: { scope: 'integration:read', handler: one } } },
] as Route[]);

/**
 * `integrations:` under a project of a seed: `{ kind: slack, name: Acme Slack, channels: [growth, …] }`
 * (a channel is its name, or `{ name, id, is_private }`); other kinds take a name only.
 */
export const integrationSeed: SeedModel = {
  key: 'integrations',
  at: 'project',
  apply: (state, { project }, value, where, fail) => {
    const ids = state.next_ids as unknown as Record<string, number>;
    for (const [i, entry] of seedList(value, where, fail).entries()) {
      const at = `${where}[${i}]`;
      for (const k of Object.keys(entry)) if (!['kind', 'name', 'channels'].includes(k)) fail(`${at}.${k}`, 'unknown key (expected kind, name, channels)');
      if (typeof entry.kind !== 'string' || !KINDS.includes(entry.kind)) fail(`${at}.kind`, `must be one of ${KINDS.join(', ')}`);
      if (typeof entry.name !== 'string' || entry.name.trim() === '') fail(`${at}.name`, 'must be a non-empty string');
      const id = ids.integration ?? 1;
      ids.integration = id + 1;
      const slack = entry.kind === 'slack';
      const channelList = slack ? seedChannels(entry.channels, `${at}.channels`, fail) : [];
      integrationsOf(state).push({
        id, project: project?.id ?? null, kind: entry.kind as string, integration_id: slack ? `T${String(id).padStart(8, '0')}` : String(entry.name),
        config: slack ? { team: { id: `T${String(id).padStart(8, '0')}`, name: entry.name as string } } : { name: entry.name as string },
        channels: channelList, created_at: nowIso(),
      });
    }
  },
};

function seedChannels(value: unknown, where: string, fail: (where: string, message: string) => never): JsonObject[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail(where, 'must be a list of channel names');
  return value.map((c, i) => {
    const named = typeof c === 'string' ? { name: c } : c as JsonObject;
    const name = String(named?.name ?? '').replace(/^#/, '');
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) fail(`${where}[${i}]`, 'must be a channel name (lower-case letters, digits, . _ -)');
    const isPrivate = named.is_private === true;
    return { id: typeof named.id === 'string' ? named.id : `C${String(i + 1).padStart(3, '0')}${name.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 6)}`,
      name, is_private: isPrivate, is_member: true, is_ext_shared: false, is_private_without_access: false };
  });
}
