// `npm run bench [-- --json | --markdown] [-- --only=startup,validate,plan,since,people,analytics,apply] [-- --from=FILE]`: every performance figure of
// hogsync, measured against the real CLI and a sandbox process on loopback.
import { readFileSync } from 'node:fs';
import { startup } from './startup.js';
import { analyticsBenchmark, driftSinceBenchmark, peopleBenchmark, planBenchmarks } from './plan-scale.js';
import { applyRate } from './apply-rate.js';
import { validateErrors } from './validate-errors.js';

const json = process.argv.includes('--json');
/** `--markdown`: the table as the README's Performance section holds it. */
const markdown = process.argv.includes('--markdown');
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const want = (name) => !only || only.has(name);
const log = (text) => { if (!json) process.stderr.write(`${text}\n`); };

/** Every benchmark `--only` asks for (all without it), as one object of figures. */
async function measure() {
  const results = {};
  if (want('startup')) { log('startup …'); results.startup = await startup(); }
  if (want('validate')) { log('validate_errors (20 000 roles, one wrong value each) …'); results.validate_errors = await validateErrors(); }
  if (want('plan')) { log('plan_scale, hourly_budget, plan_cpu, pr_plan, plan_kinds, drift_since (200 projects × 100 flags; with event definitions, with cohorts and actions) …'); Object.assign(results, await planBenchmarks()); }
  // drift_since is part of `plan`; `--only=since` runs it alone.
  else if (only?.has('since')) { log('drift_since (200 projects × 100 flags) …'); Object.assign(results, await driftSinceBenchmark()); }
  if (!want('plan') && only?.has('people')) { log('plan_people (plan_scale with 50 members, 10 roles with members, access on every project) …'); Object.assign(results, await peopleBenchmark()); }
  if (!want('plan') && only?.has('analytics')) { log('plan_analytics (plan_scale with 20 insights and 3 dashboards with tiles in every project) …'); Object.assign(results, await analyticsBenchmark()); }
  if (want('apply')) { log('apply_rate (300 updates under a rate limit; about 80 s) …'); results.apply_rate = await applyRate(); }
  return results;
}

/** `--from=FILE`: the figures of an earlier `--json` run, printed again (as a table, or `--markdown`). */
const from = process.argv.find((a) => a.startsWith('--from='))?.slice(7);
const results = from ? JSON.parse(readFileSync(from, 'utf8')) : await measure();

if (json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  const rows = [];
  const row = (bench, figure, value, target, ok) => rows.push([bench, figure, String(value), target, ok === undefined ? '' : ok ? 'ok' : 'MISSED']);
  const s = results.startup;
  if (s) {
    row('startup', 'node -e 0', `${s.node_ms} ms`, '');
    row('startup', '--version', `${s.version_ms} ms (${s.version_ratio}×)`, '≤ 1.2×', s.version_ratio <= 1.2);
    row('startup', 'validate examples/basic', `${s.validate_ms} ms (${s.validate_ratio}×)`, '≤ 2×', s.validate_ratio <= 2);
  }
  const ve = results.validate_errors;
  if (ve) {
    row('validate_errors', `validate, ${ve.errors} errors in one file`, `${ve.wall_ms} ms (valid file: ${ve.valid_wall_ms} ms)`, '≤ 2000 ms', ve.wall_ms <= 2000);
  }
  const p = results.plan_scale;
  if (p) {
    row('plan_scale', 'requests', `${p.requests} (minimum ${p.minimum_requests})`, '= minimum', p.requests === p.minimum_requests);
    row('plan_scale', 'live read wall', `${p.read_wall_ms} ms (bound ${p.bound_ms} ms, ${p.wall_over_bound}×; median of ${p.runs ?? 1}${p.read_wall_ms_range ? `, ${p.read_wall_ms_range.join('–')} ms` : ''})`, '≤ 1.3× bound', p.wall_over_bound <= 1.3);
    row('plan_scale', 'whole plan wall', `${p.total_wall_ms} ms`, '');
    row('plan_scale', 'one GET per resource', `${p.one_get_per_resource_requests} requests (${p.one_get_per_resource_ratio}× more)`, '');
  }
  const h = results.hourly_budget;
  if (h) {
    row('hourly_budget', 'requests per full plan', String(h.requests_per_plan), `≤ ${h.baseline_requests_per_plan}`, h.requests_per_plan <= h.baseline_requests_per_plan);
    row('hourly_budget', 'full plans per hour (one key)', `${h.plans_per_hour} (of ${h.hourly_limit} requests/hour)`, '');
  }
  for (const k of [results.plan_kinds, results.plan_kinds_audiences]) {
    if (!k) continue;
    row('plan_kinds', `full plan, project-level kinds: ${k.kinds.join(', ')}`, `${k.requests} requests (minimum ${k.minimum_requests})`, '= minimum', k.requests === k.minimum_requests);
  }
  const pp = results.plan_people;
  if (pp) {
    row('plan_people', `full plan, ${pp.members} members, ${pp.roles_with_members} roles with members, access on every project`, `${pp.requests} requests (minimum ${pp.minimum_requests})`, '= minimum', pp.requests === pp.minimum_requests);
    row('plan_people', 'whole plan wall (the client waits for 480 requests a minute)', `${pp.wall_ms} ms (${pp.wall_unthrottled_ms} ms with --max-rate 1000000)`, '');
  }
  const pa = results.plan_analytics;
  if (pa) {
    row('plan_analytics', `full plan, ${pa.projects} projects × ${pa.insights} insights × ${pa.dashboards} dashboards with tiles`, `${pa.requests} requests (minimum ${pa.minimum_requests})`, '= minimum', pa.requests === pa.minimum_requests);
    row('plan_analytics', 'insight GETs; requests to insight endpoints', `${pa.insight_gets}; ${pa.insight_requests}`, '0; ≤ 240', pa.insight_gets === 0 && pa.insight_requests <= 240);
  }
  const pr = results.pr_plan;
  if (pr) {
    row('pr_plan', 'one-flag --changed-since plan', `${pr.requests} requests, ${pr.wall_ms} ms (full plan: ${pr.full_plan_requests} requests)`, '≤ 5 requests', pr.requests <= 5);
  }
  const ds = results.drift_since;
  if (ds) {
    row('drift_since', 'quiet nightly --since 25h, organization-wide log', `${ds.requests} requests, ${ds.wall_ms} ms (full drift: ${ds.full_drift_requests} requests, ${ds.full_drift_wall_ms} ms; ${ds.share_percent} %)`, '≤ 1 % of full drift', ds.requests * 100 <= ds.full_drift_requests);
    row('drift_since', "the same from each project's log (a member's key)", `${ds.projects_log_requests} requests, ${ds.projects_log_wall_ms} ms`, '');
  }
  const c = results.plan_cpu;
  if (c) {
    row('plan_cpu', 'CPU time', `${c.cpu_ms} ms (median of ${c.runs ?? 1}${c.cpu_ms_range ? `, ${c.cpu_ms_range.join('–')} ms` : ''})`, '≤ 1300 ms (never above 1450)', c.cpu_ms <= 1300);
    if (c.main_thread_cpu_ms !== undefined) row('plan_cpu', 'of it, on the main thread / V8 and libuv worker threads', `${c.main_thread_cpu_ms} ms / ${Math.max(0, c.cpu_ms - c.main_thread_cpu_ms)} ms`, '');
    row('plan_cpu', 'peak memory', `${c.peak_rss_mb} MB`, '≤ 190 MB', c.peak_rss_mb <= 190);
  }
  const a = results.apply_rate;
  if (a) {
    row('apply_rate', 'achieved share of R', `${a.achieved_share} (${a.achieved_per_minute}/${a.rate_per_minute} per min, ${a.applied} applied)`, '≥ 0.9', a.achieved_share >= 0.9);
    row('apply_rate', '429 answers', String(a.throttled_429), '= 0', a.throttled_429 === 0);
  }
  if (markdown) {
    // The README's table, as it is pasted there.
    console.log('| benchmark | figure | measured | target | |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(`| \`${r[0]}\` | ${r.slice(1).map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
    process.exit(0);
  }
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i].length), 6));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(['bench', 'figure', 'value', 'target', '']));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}
