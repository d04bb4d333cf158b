// Child process of the plan benchmarks: runs hogsync's plan pipeline (load, read and compare,
// render) as `hogsync plan` does, and reports phase times, CPU time and peak memory as JSON. The
// reads and the comparison overlap (a project is compared as soon as its lists are in), so
// `read_ms` is the wall of both together: what the round-trip bound is compared with.
// The pipeline as the CLI bundles it (dist/bundle/, scripts/bundle-cli.js): the code `hogsync plan` runs.
import { readFileSync } from 'node:fs';
import { loadConfig, plannedReads, streamPlan, renderJson, renderText, apiSettings, createClient } from '../dist/bundle/plan-pipeline.mjs';

const [, , configPath] = process.argv;

/**
 * CPU of the main thread, apart from V8's and libuv's worker threads (optimising compiles,
 * parallel and concurrent garbage collection), which a `--cpu-prof` profile does not show:
 * on Linux, from /proc (clock ticks of 10 ms); elsewhere undefined.
 */
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
const t0 = performance.now();
const settings = apiSettings({});
const desired = await loadConfig([configPath]);
const t1 = performance.now();
const client = createClient(settings);
const { result } = await streamPlan(client, desired, plannedReads(desired), { baseUrl: settings.baseUrl }, settings.parallelism);
const t2 = performance.now();
const { plan } = result;
renderText(plan, { color: false });
renderJson(plan);
const t3 = performance.now();
await client.close();
const cpu = process.cpuUsage();
const mainCpu = mainThreadCpuMs();
process.stdout.write(JSON.stringify({
  load_ms: t1 - t0, read_ms: t2 - t1, plan_ms: t3 - t2, total_ms: t3 - t0,
  cpu_ms: (cpu.user + cpu.system) / 1000,
  main_thread_cpu_ms: mainCpu,
  peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  client_requests: client.stats.requests,
  changes: plan.changes.length,
}));
