// plan_scale and plan_cpu: 200 declared projects × 100 flags, 50 roles, 2 proxy records; and
// plan_kinds: the same workspace with more project-level kinds declared in every project (event
// definitions; cohorts and actions); plan_people: with members, role members and project access;
// pr_plan, a pull request's plan; drift_since, a nightly drift --since.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BIN, ORG, startSandbox, timed } from './support.js';

// PAGE: the page size hogsync's lists ask for (LIST_PAGE_SIZE, `limit=1000`; the sandbox, like
// the API, answers pages that size).
const PROJECTS = 200, FLAGS = 100, ROLES = 50, PROXIES = 2, PAGE = 1000, PARALLELISM = 10;
const COHORTS = 5, ACTIONS = 5;
/** The real API's budget for one personal key: 4800 requests per sliding hour (480 per minute). */
const HOURLY_LIMIT = 4800;
/** What a full plan of this workspace cost before lists asked for large pages: it must not grow. */
const BASELINE_PLAN_REQUESTS = 404;

function workspace() {
  const projects = Array.from({ length: PROJECTS }, (_, p) => ({
    id: 10000 + p,
    name: `Project ${p}`,
    timezone: 'UTC',
    feature_flags: Array.from({ length: FLAGS }, (_, f) => ({
      key: `flag-${f}`, name: `Flag ${f}`, active: f % 2 === 0,
      filters: { groups: [{ properties: [], rollout_percentage: f % 100 }] },
    })),
  }));
  const roles = Array.from({ length: ROLES }, (_, i) => ({ name: `Role ${i}`, feature_flags_access_level: 21 }));
  const proxy_records = Array.from({ length: PROXIES }, (_, i) => ({ domain: `p${i}.example.com` }));
  const seed = { organizations: [{ id: ORG, projects, roles, proxy_records }] };
  // The files declare everything as it is live, with one change per project so there is work
  // to show; laid out as a team of that size would: one file per project, one for the rest.
  const files = { 'organization.yaml': { organization: ORG, roles, proxy_records } };
  for (const p of projects) files[`project-${p.id}.yaml`] = { organization: ORG, projects: [{ ...p, timezone: 'Europe/Berlin' }] };
  return { seed, files };
}

/** Event definitions each project holds (the events that arrived), and how many of them the files describe. */
const DEFINITIONS = 20, DESCRIBED = 3;

/**
 * plan_kinds: the plan_scale workspace with more project-level kinds declared in every project
 * besides its flags, planned by the CLI: its requests beside the minimum (one list per listed
 * kind per project, one search per declared event definition: never the whole dictionary).
 * `add(seedProject, fileProject, index)` adds the kinds to one project of the seed and the files.
 */
async function runPlanKinds(dir, files, latency, { name, kinds, perProject, add }) {
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8'));
  const copies = Object.fromEntries(Object.entries(files).map(([file, doc]) => [file, structuredClone(doc)]));
  seed.organizations[0].projects.forEach((project, i) => add(project, copies[`project-${project.id}.yaml`].projects[0], i));
  writeFileSync(join(dir, `seed-${name}.json`), JSON.stringify(seed));
  const config = join(dir, `config-${name}`);
  mkdirSync(config);
  for (const [file, doc] of Object.entries(copies)) writeFileSync(join(config, file), stringify(doc));
  const sandbox = await startSandbox(['--seed', join(dir, `seed-${name}.json`), '--latency', String(latency)]);
  try {
    await sandbox.resetStats();
    const r = await timed(process.execPath, [BIN, 'plan', config, '--format', 'json'], { stdout: 'pipe', env: sandbox.env });
    if (r.code !== 0) throw new Error(`plan of several kinds failed (${r.code})`);
    const stats = await sandbox.stats();
    const plan = JSON.parse(r.stdout);
    const minimum = Math.ceil(PROJECTS / PAGE) + PROJECTS * (1 + Math.ceil(FLAGS / PAGE) + perProject) + Math.ceil(ROLES / PAGE) + Math.ceil(PROXIES / PAGE);
    return { requests: stats.requests, minimum_requests: minimum, kinds, wall_ms: Math.round(r.ms), changes: plan.changes.length, by_route: stats.byRoute };
  } finally {
    await sandbox.stop();
  }
}

/** DESCRIBED event definitions of DEFINITIONS in every project: one search each. */
const EVENT_DEFINITIONS = {
  name: 'kinds',
  kinds: ['feature_flags', 'event_definitions'],
  perProject: DESCRIBED,
  add: (seedProject, fileProject) => {
    seedProject.event_definitions = Array.from({ length: DEFINITIONS }, (_, i) => ({ name: `event_${i}` }));
    fileProject.event_definitions = Array.from({ length: DESCRIBED }, (_, i) => ({ name: `event_${i}`, description: `Event ${i}` }));
  },
};

/**
 * COHORTS cohorts and ACTIONS actions in every project (three project-level kinds with the
 * flags), declared as they are live: cohorts by name, the last one built on an action by name
 * ({ action: NAME }), which the seed holds by id (actions are seeded first, numbered in project
 * order). One list each per project (the action list is one plain answer).
 */
const AUDIENCES = {
  name: 'audiences',
  kinds: ['feature_flags', 'cohorts', 'actions'],
  perProject: Math.ceil(COHORTS / PAGE) + 1,
  add: (seedProject, fileProject, i) => {
    const actions = Array.from({ length: ACTIONS }, (_, a) => ({ name: `Action ${a}`, description: `Action ${a}`, steps: [{ event: `event_${a}`, url: `/page/${a}` }] }));
    const criterion = (c) => ({ type: 'person', key: 'email', operator: 'icontains', value: `@team${c}.example.com` });
    const behavioral = (key) => ({ type: 'behavioral', key, value: 'performed_event', event_type: 'actions', time_value: 30, time_interval: 'day' });
    const cohorts = (action) => Array.from({ length: COHORTS }, (_, c) => ({
      name: `Cohort ${c}`,
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [c === COHORTS - 1 ? behavioral(action) : criterion(c)] }] } },
    }));
    Object.assign(seedProject, { actions, cohorts: cohorts(i * ACTIONS + 1) });
    Object.assign(fileProject, { actions, cohorts: cohorts({ action: 'Action 0' }) });
  },
};

/** plan_analytics: INSIGHTS insights and DASHBOARDS dashboards (each showing TILES of them) in every project. */
const INSIGHTS = 20, DASHBOARDS = 3, TILES = 5;

/**
 * plan_analytics: the plan_scale workspace with INSIGHTS insights and DASHBOARDS dashboards with
 * tiles declared in every project, as they are live. The minimum per project: one `basic=true`
 * insight list (never a GET per insight: the insight endpoints' throttle is 240 a minute), one
 * dashboard list, and one GET per dashboard that declares tiles (the list carries none).
 */
const ANALYTICS = {
  name: 'analytics',
  kinds: ['feature_flags', 'insights', 'dashboards'],
  perProject: Math.ceil(INSIGHTS / PAGE) + Math.ceil(DASHBOARDS / PAGE) + DASHBOARDS,
  add: (seedProject, fileProject) => {
    const insights = Array.from({ length: INSIGHTS }, (_, i) => ({
      name: `Insight ${i}`, description: `Chart ${i}`,
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', interval: 'week', series: [{ kind: 'EventsNode', event: `event_${i}`, math: 'dau' }] } },
    }));
    const dashboards = Array.from({ length: DASHBOARDS }, (_, d) => ({
      name: `Dashboard ${d}`, pinned: d === 0,
      tiles: Array.from({ length: TILES }, (_, t) => ({ insight: `Insight ${(d * TILES + t) % INSIGHTS}` })),
    }));
    Object.assign(seedProject, { insights: insights.map((i) => ({ ...i, saved: true })), dashboards });
    Object.assign(fileProject, { insights, dashboards });
  },
};

/** plan_analytics alone (`--only=analytics`). */
export async function analyticsBenchmark() {
  const { dir, files } = writeWorkspace();
  try {
    return { plan_analytics: analyticsFigures(await runPlanKinds(dir, files, 25, ANALYTICS)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function analyticsFigures(run) {
  const routes = run.by_route ?? {};
  const insightRequests = Object.entries(routes).filter(([route]) => route.includes('/insights/')).reduce((n, [, count]) => n + count, 0);
  const { by_route: _routes, ...rest } = run;
  return {
    ...rest, projects: PROJECTS, insights: INSIGHTS, dashboards: DASHBOARDS, tiles: TILES,
    insight_gets: routes['GET /api/projects/:project/insights/:id/'] ?? 0,
    insight_requests: insightRequests,
    targets: { requests: 'minimum', insight_gets: 0, insight_requests: '≤ 240 (a minute of the insight throttle)' },
  };
}

/** plan_people: people and access on top of plan_scale. */
const MEMBERS = 50, PEOPLE_ROLES = 10, ROLE_MEMBERS = 5;

/**
 * plan_people: the plan_scale workspace with MEMBERS members declared with their levels,
 * PEOPLE_ROLES of its roles declared with their members, and access rules on every project
 * (the plan creates them). Requests beside the minimum: per project its two access lists (the
 * project's rules and its resource rules, both unpaginated), and once per organization its
 * members, its invites, the key's own user, its record (the features access needs), and one
 * membership list per role that declares members.
 */
async function runPlanPeople(dir, files, latency) {
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8'));
  const copies = Object.fromEntries(Object.entries(files).map(([file, doc]) => [file, structuredClone(doc)]));
  const users = Array.from({ length: MEMBERS }, (_, i) => ({ first_name: `Person ${i}`, email: `person${i}@example.com`, level: i % 10 === 0 ? 'admin' : 'member' }));
  seed.users = users;
  const org = copies['organization.yaml'];
  org.members = users.map((u) => ({ email: u.email, level: u.level }));
  const withMembers = (role, r) => (r < PEOPLE_ROLES ? { ...role, members: users.slice(r * ROLE_MEMBERS, (r + 1) * ROLE_MEMBERS).map((u) => u.email) } : role);
  seed.organizations[0].roles = seed.organizations[0].roles.map(withMembers);
  org.roles = org.roles.map(withMembers);
  for (const project of seed.organizations[0].projects) {
    copies[`project-${project.id}.yaml`].projects[0].access = {
      default: 'member', roles: { 'Role 0': 'admin' }, resources: { feature_flag: { default: 'viewer', roles: { 'Role 1': 'editor' } } },
    };
  }
  writeFileSync(join(dir, 'seed-people.json'), JSON.stringify(seed));
  const config = join(dir, 'config-people');
  mkdirSync(config);
  for (const [file, doc] of Object.entries(copies)) writeFileSync(join(config, file), stringify(doc));
  const sandbox = await startSandbox(['--seed', join(dir, 'seed-people.json'), '--latency', String(latency)]);
  try {
    await sandbox.resetStats();
    const r = await timed(process.execPath, [BIN, 'plan', config, '--format', 'json'], { stdout: 'pipe', env: sandbox.env });
    if (r.code !== 0) throw new Error(`plan of people and access failed (${r.code})`);
    const stats = await sandbox.stats();
    const plan = JSON.parse(r.stdout);
    // plan_scale's minimum: the organization's project list, per project its GET and its flag
    // list, the role list, the proxy record list.
    const base = Math.ceil(PROJECTS / PAGE) + PROJECTS * (1 + Math.ceil(FLAGS / PAGE)) + Math.ceil(ROLES / PAGE) + Math.ceil(PROXIES / PAGE);
    const people = PROJECTS * 2 // …/access_controls/ and …/resource_access_controls/ (unpaginated)
      + Math.ceil((MEMBERS + 1) / PAGE) // members (the sandbox's own user is one too)
      + 1 // invites (none open: one empty page)
      + 1 // GET /api/users/@me/ (the key's own user, never changed)
      + 1 // GET /api/organizations/ORG/ (its features, for access)
      + PEOPLE_ROLES; // …/roles/ID/role_memberships/, one per role that declares members
    // The same plan without the client's rate limit: over 480 requests (DEFAULT_MAX_RATE) the
    // plan waits for the API's per-minute budget, which is most of its wall time.
    const free = await timed(process.execPath, [BIN, 'plan', config, '--format', 'json', '--max-rate', '1000000'], { env: sandbox.env });
    if (free.code !== 0) throw new Error(`plan of people and access without a rate limit failed (${free.code})`);
    return {
      requests: stats.requests, minimum_requests: base + people, members: MEMBERS, roles_with_members: PEOPLE_ROLES,
      wall_ms: Math.round(r.ms), wall_unthrottled_ms: Math.round(free.ms), changes: plan.changes.length,
    };
  } finally {
    await sandbox.stop();
  }
}

/** plan_people alone (`npm run bench -- --only=people`). */
export async function peopleBenchmark() {
  const { dir, files } = writeWorkspace();
  try {
    return { plan_people: { ...(await runPlanPeople(dir, files, 25)), targets: { requests: 'minimum' } } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The plan pipeline run RUNS times, each against a fresh sandbox, and the run with the median of
 * `figure` kept: one run on a busy 2-core machine varies by ±15 %, which would decide a target.
 * The range of all runs is reported beside it. Five, not three: the CPU of one bench's three runs
 * here spanned 1174–1612 ms for one build, so one slow or fast run could still be the median.
 */
const RUNS = 5;
async function medianPlan(dir, latency, figure) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await runPlan(dir, latency));
  runs.sort((a, b) => a[figure] - b[figure]);
  const median = runs[Math.floor(runs.length / 2)];
  return { ...median, runs: runs.length, range: [Math.round(runs[0][figure]), Math.round(runs[runs.length - 1][figure])] };
}

async function runPlan(dir, latency) {
  const sandbox = await startSandbox(['--seed', join(dir, 'seed.json'), '--latency', String(latency)]);
  try {
    await sandbox.resetStats();
    const r = await timed(process.execPath, ['bench/plan-worker.js', join(dir, 'config')], { stdout: 'pipe', env: sandbox.env });
    if (r.code !== 0) throw new Error(`plan worker failed (${r.code})`);
    const stats = await sandbox.stats();
    return { ...JSON.parse(r.stdout), sandbox_requests: stats.requests };
  } finally {
    await sandbox.stop();
  }
}

/**
 * pr_plan: the plan a pull request that changes one flag gets with --changed-since, from the
 * CLI (a process, as CI runs it), against the same workspace: its requests and wall time.
 */
async function runPrPlan(dir, files, latency) {
  const config = join(dir, 'config');
  const git = (...args) => execFileSync('git', args, {
    cwd: config, stdio: 'ignore',
    env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' },
  });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'workspace');
  // The pull request: one flag of one project gets another rollout.
  const name = `project-${10000 + 5}.yaml`;
  const doc = structuredClone(files[name]);
  doc.projects[0].feature_flags[7].filters.groups[0].rollout_percentage = 55;
  writeFileSync(join(config, name), stringify(doc));
  const sandbox = await startSandbox(['--seed', join(dir, 'seed.json'), '--latency', String(latency)]);
  try {
    await sandbox.resetStats();
    const r = await timed(process.execPath, [BIN, 'plan', config, '--changed-since', 'main', '--format', 'json'], { stdout: 'pipe', env: sandbox.env });
    if (r.code !== 0) throw new Error(`pr plan failed (${r.code})`);
    const plan = JSON.parse(r.stdout);
    const stats = await sandbox.stats();
    return { requests: stats.requests, wall_ms: Math.round(r.ms), changes: plan.changes.length, derived: plan.targets.changed_since.derived.length };
  } finally {
    await sandbox.stop();
  }
}

/** A member's key of the plan_scale organization: it may not read the organization-wide log. */
const MEMBER_KEY = 'phx_bench_member_key_0000000000000000000000';

/**
 * drift_since: the nightly change feed of the plan_scale workspace on a quiet night (nothing in
 * the logs since 25 hours), from the CLI: its requests and wall with the organization-wide log
 * (the sandbox's own key, an owner's), and with each project's log (a member's key); beside the
 * requests of the full drift it stands in for (its lists, and one activity read per drifted item).
 */
async function runDriftSince(dir, latency) {
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8'));
  seed.users = [{ first_name: 'Member', email: 'member@example.com', level: 'member', keys: [{ key: MEMBER_KEY, scopes: ['*'] }] }];
  writeFileSync(join(dir, 'seed-since.json'), JSON.stringify(seed));
  const config = join(dir, 'config');
  const sandbox = await startSandbox(['--seed', join(dir, 'seed-since.json'), '--latency', String(latency)]);
  try {
    const drift = async (what, args, env = sandbox.env) => {
      await sandbox.resetStats();
      const r = await timed(process.execPath, [BIN, 'drift', config, '--format', 'json', ...args], { stdout: 'pipe', env });
      if (r.code !== 0 && r.code !== 2) throw new Error(`${what} failed (${r.code})`);
      return { requests: (await sandbox.stats()).requests, wall_ms: Math.round(r.ms), report: JSON.parse(r.stdout) };
    };
    const full = await drift('full drift', []);
    const since = await drift('drift --since', ['--since', '25h']);
    if (since.report.since === undefined) throw new Error('drift --since fell back to a full drift');
    const projects = await drift("drift --since from the projects' logs", ['--since', '25h'], { ...sandbox.env, HOGSYNC_API_KEY: MEMBER_KEY });
    return {
      requests: since.requests,
      wall_ms: since.wall_ms,
      changes: since.report.changes.length,
      full_drift_requests: full.requests,
      full_drift_wall_ms: full.wall_ms,
      full_drift_changes: full.report.changes.length,
      share_percent: Math.round((since.requests / full.requests) * 1000) / 10,
      projects_log_requests: projects.requests,
      projects_log_wall_ms: projects.wall_ms,
      targets: { share_percent: 1 },
    };
  } finally {
    await sandbox.stop();
  }
}

/** The plan_scale workspace written to a new directory: its seed and its configuration files. */
function writeWorkspace() {
  const dir = mkdtempSync(join(tmpdir(), 'hogsync-bench-'));
  const { seed, files } = workspace();
  writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
  mkdirSync(join(dir, 'config'));
  for (const [name, doc] of Object.entries(files)) writeFileSync(join(dir, 'config', name), stringify(doc));
  return { dir, files };
}

/** drift_since alone (`npm run bench -- --only=since`). */
export async function driftSinceBenchmark() {
  const { dir } = writeWorkspace();
  try {
    return { drift_since: await runDriftSince(dir, 25) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const withoutRoutes = ({ by_route: _routes, ...rest }) => rest;

export async function planBenchmarks() {
  const { dir, files } = writeWorkspace();
  try {
    const latency = 25;
    // One list per collection page (the projects' list names the unmanaged ones), one GET per project.
    const minimum = Math.ceil(PROJECTS / PAGE) + PROJECTS * (1 + Math.ceil(FLAGS / PAGE)) + Math.ceil(ROLES / PAGE) + Math.ceil(PROXIES / PAGE);
    const scale = await medianPlan(dir, latency, 'read_ms');
    const bound = Math.ceil(minimum / PARALLELISM) * latency;
    const terraform = PROJECTS * (1 + FLAGS) + ROLES + PROXIES;
    const cpu = await medianPlan(dir, 0, 'cpu_ms');
    const pr = await runPrPlan(dir, files, latency);
    const kinds = await runPlanKinds(dir, files, latency, EVENT_DEFINITIONS);
    const audiences = await runPlanKinds(dir, files, latency, AUDIENCES);
    const since = await runDriftSince(dir, latency);
    const people = await runPlanPeople(dir, files, latency);
    const analytics = await runPlanKinds(dir, files, latency, ANALYTICS);
    return {
      plan_analytics: analyticsFigures(analytics),
      plan_people: { ...people, targets: { requests: 'minimum' } },
      plan_scale: {
        requests: scale.sandbox_requests,
        minimum_requests: minimum,
        read_wall_ms: Math.round(scale.read_ms),
        read_wall_ms_range: scale.range,
        runs: scale.runs,
        total_wall_ms: Math.round(scale.total_ms),
        bound_ms: bound,
        wall_over_bound: Math.round((scale.read_ms / bound) * 100) / 100,
        one_get_per_resource_requests: terraform,
        one_get_per_resource_ratio: Math.round((terraform / scale.sandbox_requests) * 10) / 10,
        targets: { requests: 'minimum', wall_over_bound: 1.3 },
      },
      hourly_budget: {
        requests_per_plan: scale.sandbox_requests,
        hourly_limit: HOURLY_LIMIT,
        plans_per_hour: Math.floor(HOURLY_LIMIT / scale.sandbox_requests),
        baseline_requests_per_plan: BASELINE_PLAN_REQUESTS,
        targets: { requests_per_plan: `≤ ${BASELINE_PLAN_REQUESTS}` },
      },
      plan_cpu: {
        cpu_ms: Math.round(cpu.cpu_ms),
        cpu_ms_range: cpu.range,
        runs: cpu.runs,
        main_thread_cpu_ms: cpu.main_thread_cpu_ms,
        peak_rss_mb: Math.round(cpu.peak_rss_mb),
        load_ms: Math.round(cpu.load_ms),
        read_ms: Math.round(cpu.read_ms),
        plan_ms: Math.round(cpu.plan_ms),
        changes: cpu.changes,
        targets: { cpu_ms: 1300, peak_rss_mb: 190 },
      },
      plan_kinds: { ...withoutRoutes(kinds), targets: { requests: 'minimum' } },
      plan_kinds_audiences: { ...withoutRoutes(audiences), targets: { requests: 'minimum' } },
      drift_since: since,
      pr_plan: {
        requests: pr.requests,
        wall_ms: pr.wall_ms,
        changes: pr.changes,
        derived_targets: pr.derived,
        full_plan_requests: scale.sandbox_requests,
        targets: { requests: 5 },
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
