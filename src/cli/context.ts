// What the API verbs share: settings from flags and environment, the client, and the
// load → read → plan pipeline with progress on a terminal.
import { ApiClient, createClient, type ClientEvent } from '../api/client.js';
import { printable } from '../render/printable.js';
import { readLiveState } from '../api/live-state.js';
import { addBlastRadius } from '../api/blast-radius.js';
import { loadConfig } from '../config/load.js';
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { computePlan } from '../plan/planner.js';
import type { PlanResult } from '../plan/types.js';

export const DEFAULT_BASE_URL = 'https://us.posthog.com';

export interface ApiSettings { baseUrl: string; apiKey: string; parallelism: number; requestsPerMinute: number; verbose: boolean }

/** Digits only: Number() would also take "", " 5", "0x10" and "1e1". */
export function positiveInt(value: unknown, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new HogsyncError('usage', `${flag} must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

export function apiSettings(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ApiSettings {
  const baseUrl = String(opts.baseUrl ?? (env.HOGSYNC_BASE_URL || DEFAULT_BASE_URL)).replace(/\/+$/, '');
  const apiKey = env.HOGSYNC_API_KEY ?? '';
  if (!apiKey) throw new HogsyncError('usage', 'HOGSYNC_API_KEY is not set: export a personal API key (it is read only from the environment)');
  return {
    baseUrl,
    apiKey,
    parallelism: positiveInt(opts.parallelism ?? 10, '--parallelism', 100),
    requestsPerMinute: positiveInt(opts.maxRate ?? 480, '--max-rate', 1_000_000),
    verbose: opts.verbose === true,
  };
}

export function openClient(settings: ApiSettings): ApiClient {
  return createClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    parallelism: settings.parallelism,
    requestsPerMinute: settings.requestsPerMinute,
    // --verbose: one line per request, retry and throttle on stderr (paths come redacted from the client).
    onEvent: settings.verbose ? (e) => process.stderr.write(`${verboseLine(e)}\n`) : undefined,
  });
}

function verboseLine(e: ClientEvent): string {
  const status = e.status === undefined ? '' : ` → ${e.status}`;
  const wait = e.waitMs === undefined ? '' : ` (waiting ${e.waitMs} ms)`;
  return printable(`hogsync: ${e.type} ${e.method} ${e.path}${status}${wait}`);
}

/** A one-line progress indicator on a terminal's stderr; silent elsewhere. */
export function progressLine(enabled: boolean = process.stderr.isTTY === true): { update(text: string): void; done(): void } {
  let shown = false;
  return {
    update(text) {
      if (!enabled) return;
      process.stderr.write(`\r\u001b[2K${text}`);
      shown = true;
    },
    done() {
      if (shown) process.stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

export interface Planned { desired: DesiredState; result: PlanResult; client: ApiClient; warnings: string[] }

/** Loads the files, reads live state and computes the plan (with blast radius for flags). */
export async function planFromFiles(paths: string[], settings: ApiSettings, kind: 'plan' | 'drift', withBlastRadius = true): Promise<Planned> {
  const desired = await loadConfig(paths);
  const client = openClient(settings);
  const progress = progressLine();
  try {
    const timer = setInterval(() => progress.update(`reading live state: ${client.stats.requests} requests`), 200);
    let live;
    try {
      live = await readLiveState(client, desired, settings.parallelism);
    } finally {
      clearInterval(timer);
      progress.done();
    }
    const result = computePlan(desired, live, { baseUrl: settings.baseUrl, kind });
    const warnings = withBlastRadius ? await addBlastRadius(result, client, settings.parallelism) : [];
    result.plan.warnings.push(...warnings);
    return { desired, result, client, warnings };
  } catch (err) {
    await client.close();
    throw err;
  }
}
