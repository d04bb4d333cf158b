// A subscription's Slack target: the file names the project's Slack integration by name and the
// channel by name (`#growth`, or `C…|#growth` as the API keeps it); the API takes the
// integration's id (`integration_id`) and `CHANNEL_ID|#name` (posthog/api/subscription.py;
// ee/tasks/subscriptions/slack_subscriptions.py posts to the part before `|`). What this reads:
//   - a project's integrations (GET /api/projects/{id}/integrations/, paginated), once per run and
//     only for a project whose files declare a Slack subscription (or, for export and show, whose
//     live subscriptions hold one); a Slack integration's name is its `display_name` (the
//     workspace's name, also `config.team.name`);
//   - an integration's channels (GET …/integrations/{id}/channels/, pages of `limit` from `offset`
//     while `has_more`), only for a change that sends a channel written by name.
import { suggest } from '../../config/suggest.js';
import type { KindPort, Located, LiveRecord, PreparedItem, Scope, SentChange } from '../kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface Integration { id: number; kind: string; name: string }
interface Channel { id: string; name: string }

/** What this run has read, by project (integrations) and by `project|integration` (channels). */
const integrationsRead = new Map<number, Promise<Integration[]>>();
const channelsRead = new Map<string, Promise<Channel[]>>();

const integrationsPath = (project: number) => `/api/projects/${encodeURIComponent(String(project))}/integrations/`;

/** An integration's name as the web app shows it: a Slack one's workspace. */
function nameOf(record: Obj): string {
  const config = isObj(record.config) ? record.config : {};
  const team = isObj(config.team) ? config.team : {};
  return typeof record.display_name === 'string' && record.display_name !== '' ? record.display_name : String(team.name ?? record.id);
}

export function integrationsOf(port: KindPort, project: number): Promise<Integration[]> {
  let found = integrationsRead.get(project);
  if (!found) {
    found = port.listAll<unknown>(integrationsPath(project)).then((records) => records.flatMap((r) => (isObj(r) && typeof r.id === 'number' ? [{ id: r.id, kind: String(r.kind), name: nameOf(r) }] : [])));
    integrationsRead.set(project, found);
  }
  return found;
}

/** The integrations already read for a project (none when it was not read). */
async function known(project: number | null): Promise<Integration[]> {
  return project === null ? [] : (await integrationsRead.get(project)) ?? [];
}

/** Synchronous view of what was read: the resolved integrations, by project. */
const resolved = new Map<number, Integration[]>();

/** A run starts from nothing: what an earlier run in this process read may have changed since. */
function forget(): void {
  integrationsRead.clear();
  channelsRead.clear();
  resolved.clear();
}

/** The name of the integration of this id, where this run read its project's (ids are the instance's, never repeated). */
export function integrationNamed(id: unknown): string | undefined {
  for (const list of resolved.values()) {
    const found = list.find((i) => i.id === id);
    if (found) return found.name;
  }
  return undefined;
}

/** The id of the project's Slack integration of this name (exactly, else without regard to case). */
export function integrationId(project: number | null, name: unknown): number | undefined {
  if (project === null || typeof name !== 'string') return undefined;
  const slack = (resolved.get(project) ?? []).filter((i) => i.kind === 'slack');
  return (slack.find((i) => i.name === name) ?? slack.find((i) => i.name.toLowerCase() === name.toLowerCase()))?.id;
}

/** A channel as the plan compares and a file writes it: `#name` (the API's `ID|#name` too). */
export function channelName(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const name = value.includes('|') ? value.slice(value.indexOf('|') + 1) : value;
  return `#${name.trim().replace(/^#/, '').toLowerCase()}`;
}

/** Whether a target is written with its channel's id (`C…|#name`): sent as it is. */
const hasId = (value: string) => /^[A-Z0-9]+\|/.test(value);

/** A Slack subscription declared present: its integration must be the project's Slack integration, by name. */
export async function prepareSlack(items: readonly PreparedItem[], port: KindPort): Promise<{ problems: Located[]; warnings: Located[] }> {
  forget();
  const problems: Located[] = [];
  for (const item of items) {
    if (item.ensure !== 'present' || item.fields.target_type !== 'slack') continue;
    const title = `subscription "${String((item as { key?: string }).key ?? '')}"`;
    if (item.project === null) {
      problems.push({ position: item.position, message: `${title}: a Slack subscription names its project's Slack integration, which can be read only once the project exists: apply the project first` });
      continue;
    }
    const all = await integrationsOf(port, item.project);
    resolved.set(item.project, all);
    const name = String(item.fields.integration ?? '');
    if (integrationId(item.project, name) !== undefined) continue;
    problems.push({ position: item.position, message: `${title}: integration: ${unknownIntegration(name, item.project, all)}` });
  }
  return { problems, warnings: [] };
}

function unknownIntegration(name: string, project: number, all: readonly Integration[]): string {
  const slack = all.filter((i) => i.kind === 'slack').map((i) => i.name);
  const other = all.find((i) => i.kind !== 'slack' && i.name.toLowerCase() === name.toLowerCase());
  if (other) return `"${name}" is a ${other.kind} integration of project ${project}, and the API delivers Slack subscriptions only through a Slack integration`
    + (slack.length > 0 ? ` (the project's Slack integrations: ${slack.join(', ')})` : '');
  if (slack.length === 0) return `project ${project} has no Slack integration: connect Slack in the project's settings (integrations are connected in the web app), then name it here`;
  const guess = suggest(name, slack);
  return `project ${project} has no Slack integration "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}; its Slack integrations: ${slack.join(', ')}`;
}

/** Before export or show: the integrations of the projects whose live subscriptions deliver to Slack. */
export async function prepareSlackExport(records: ReadonlyArray<{ record: LiveRecord; scope: Scope }>, port: KindPort): Promise<void> {
  forget();
  const projects = new Set(records.filter(({ record }) => record.target_type === 'slack' && record.deleted !== true).map(({ scope }) => scope.project));
  for (const project of projects) if (project !== null) resolved.set(project, await integrationsOf(port, project));
}

async function channelsOf(port: KindPort, project: number, integration: number): Promise<Channel[]> {
  const key = `${project}|${integration}`;
  let found = channelsRead.get(key);
  if (!found) {
    found = (async () => {
      const out: Channel[] = [];
      const limit = 200;
      for (let offset = 0; ; offset += limit) {
        const { body }: { body: unknown } = await port.request('GET', `${integrationsPath(project)}${integration}/channels/?limit=${limit}&offset=${offset}`);
        const page = isObj(body) && Array.isArray(body.channels) ? body.channels : [];
        for (const c of page) if (isObj(c) && typeof c.id === 'string' && typeof c.name === 'string') out.push({ id: c.id, name: c.name });
        // Older versions answer every channel at once, without has_more.
        if (!(isObj(body) && body.has_more === true) || page.length === 0) return out;
      }
    })();
    channelsRead.set(key, found);
  }
  return found;
}

/**
 * Creates and updates that send a Slack target: the channel written by name is sent as
 * `ID|#name`, found in the integration's channels (read only for these); an integration changed
 * alone sends the channel again, found in the new integration's workspace.
 */
export async function prepareSlackSends(sends: readonly SentChange[], port: KindPort): Promise<Array<{ address: string; message: string }>> {
  const problems: Array<{ address: string; message: string }> = [];
  for (const send of sends) {
    const { values, live, scope } = send;
    const slack = (values.target_type ?? live?.target_type) === 'slack';
    if (!slack || !('target_value' in values || 'integration' in values) || scope.project === null) continue;
    const channel = values.target_value ?? live?.target_value;
    if (typeof channel !== 'string' || hasId(channel)) continue;
    const integration = integrationId(scope.project, values.integration ?? live?.integration);
    if (integration === undefined) continue;
    const wanted = String(channelName(channel)).slice(1);
    const found = (await channelsOf(port, scope.project, integration)).find((c) => c.name.toLowerCase() === wanted);
    if (!found) {
      const name = (await known(scope.project)).find((i) => i.id === integration)?.name ?? String(integration);
      problems.push({ address: send.address, message: `target_value: the Slack integration "${name}" sees no channel #${wanted}: check the channel's name, and that PostHog's Slack app is in it (invite it to a private channel)` });
      continue;
    }
    values.target_value = `${found.id}|#${found.name}`;
  }
  return problems;
}
