// Every option the verbs share or parse, in one place: the common options (defined once, for
// the program and for each verb), the API settings from flags and environment, and one
// parser for numbers, so every bad value gets the same kind of one-line error.
import type { Command } from 'commander';
import { KINDS, kindKeys } from '../resources/registry.js';
import { HogsyncError } from '../errors.js';
import { DEFAULT_MAX_DELETE_PERCENT } from '../plan/limits.js';
import type { SafetyOptions } from '../plan/safety.js';
import type { ApiSettings } from '../usecases/session.js';
import { parseBaseUrl } from '../http/origin.js';
import { describeBaseUrl, type BaseUrlOrigin, type BaseUrlSource } from './advice.js';

export const DEFAULT_BASE_URL = 'https://us.posthog.com';
export const DEFAULT_PARALLELISM = 10;
export const DEFAULT_MAX_RATE = 480;
export const DEFAULT_TIMEOUT_SECONDS = 120;
export const DEFAULT_MAX_HOURLY = 4800;
export const DEFAULT_MAX_WAIT_SECONDS = 300;

/** The options every API verb takes, also accepted before the verb. */
export function withApiOptions(cmd: Command): Command {
  return cmd.option('--base-url <url>', `API base URL (env HOGSYNC_BASE_URL, default ${DEFAULT_BASE_URL})`)
    .option('--parallelism <n>', `concurrent requests (default ${DEFAULT_PARALLELISM})`)
    .option('--max-rate <n>', `client-side limit of requests per minute (default ${DEFAULT_MAX_RATE}, the API's limit for personal keys)`)
    .option('--timeout <seconds>', `the longest one request may take, its retries included (default ${DEFAULT_TIMEOUT_SECONDS})`)
    .option('--max-hourly <n>', `client-side limit of requests per hour (default ${DEFAULT_MAX_HOURLY}, the API's hourly limit for personal keys)`)
    .option('--max-wait <seconds>', `longest rate-limit wait to sit out (default ${DEFAULT_MAX_WAIT_SECONDS}); a longer one stops the run`);
}

/** The options every verb takes, also accepted before the verb. */
export function withOutputOptions(cmd: Command): Command {
  return cmd.option('--no-color', 'disable colour (also NO_COLOR)')
    .option('--verbose', 'print details and stack traces');
}

export interface NumberRule {
  min: number;
  max: number;
  integer: boolean;
  /**
   * `from` (default): digits only (with a fraction for non-integers), since Number() would
   * also take "", " 5", "0x10" and "1e1"; the message reads `a whole number from 1 to 100`.
   * `between`: the sandbox's options, any JavaScript number (".5", "1e3"); the message reads
   * `an integer between 0 and 65535`.
   */
  style?: 'from' | 'between';
}

/** The one number parser of the command line. */
export function numberOption(value: unknown, flag: string, rule: NumberRule): number {
  const text = typeof value === 'number' ? String(value) : String(value ?? '');
  const shape = rule.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  const trimmed = rule.style === 'between' ? text.trim() : text;
  const n = typeof value === 'number' ? value
    : rule.style === 'between' ? (trimmed === '' ? NaN : Number(trimmed))
    : shape.test(trimmed) ? Number(trimmed) : NaN;
  const ok = Number.isFinite(n) && n >= rule.min && n <= rule.max && (!rule.integer || Number.isSafeInteger(n));
  if (ok) return n;
  if (rule.style === 'between') {
    throw new HogsyncError('usage', `${flag} must be ${rule.integer ? 'an integer' : 'a number'} between ${rule.min} and ${rule.max} (got "${trimmed}")`);
  }
  const what = rule.integer ? 'a whole number' : 'a number';
  throw new HogsyncError('usage', `${flag} must be ${what} from ${rule.min} to ${rule.max}, got ${JSON.stringify(value ?? '')}`);
}

export function positiveInt(value: unknown, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  return numberOption(value, flag, { min: 1, max, integer: true });
}

/** The base URL and where it came from: --base-url, else HOGSYNC_BASE_URL, else the default. */
export function baseUrlOrigin(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): BaseUrlOrigin {
  const source: BaseUrlSource = opts.baseUrl !== undefined ? 'flag' : env.HOGSYNC_BASE_URL ? 'env' : 'default';
  const raw = source === 'flag' ? opts.baseUrl : source === 'env' ? env.HOGSYNC_BASE_URL : DEFAULT_BASE_URL;
  return { baseUrl: String(raw).replace(/\/+$/, ''), source };
}

export function apiSettings(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ApiSettings {
  const origin = baseUrlOrigin(opts, env);
  const { baseUrl } = origin;
  try {
    parseBaseUrl(baseUrl);
  } catch (err) {
    // Checked before anything else, and said with where it was set: the flag, the environment.
    if (err instanceof HogsyncError) throw new HogsyncError(err.code, `${err.message}; it is set by ${describeBaseUrl(origin)}`);
    throw err;
  }
  const apiKey = env.HOGSYNC_API_KEY ?? '';
  if (!apiKey) throw new HogsyncError('usage', 'HOGSYNC_API_KEY is not set: export a personal API key (it is read only from the environment)');
  return {
    baseUrl,
    apiKey,
    parallelism: positiveInt(opts.parallelism ?? DEFAULT_PARALLELISM, '--parallelism', 100),
    requestsPerMinute: positiveInt(opts.maxRate ?? DEFAULT_MAX_RATE, '--max-rate', 1_000_000),
    timeoutMs: Math.max(1, Math.round(1000 * numberOption(opts.timeout ?? String(DEFAULT_TIMEOUT_SECONDS), '--timeout', { min: 0.001, max: 86_400, integer: false }))),
    requestsPerHour: positiveInt(opts.maxHourly ?? DEFAULT_MAX_HOURLY, '--max-hourly', 100_000_000),
    maxWaitMs: numberOption(opts.maxWait ?? String(DEFAULT_MAX_WAIT_SECONDS), '--max-wait', { min: 0, max: 86_400, integer: false }) * 1000,
  };
}

export function safetyOptions(opts: Record<string, unknown>): SafetyOptions {
  const list = Array.isArray(opts.allowDelete) ? opts.allowDelete.map(String) : [];
  for (const item of list) {
    if (!/^[a-z_]+\/.+$/.test(item)) throw new HogsyncError('usage', `--allow-delete takes KIND/KEY, e.g. project/777, got ${JSON.stringify(item)}`);
  }
  const percent = numberOption(opts.maxDeletePercent ?? String(DEFAULT_MAX_DELETE_PERCENT), '--max-delete-percent', { min: 0, max: 100, integer: false });
  return { allowDelete: list, maxDeletePercent: percent };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function organizationOption(raw: unknown): string {
  const id = String(raw ?? '').trim();
  if (!UUID.test(id)) throw new HogsyncError('usage', `--organization must be an organization id (a UUID such as 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f), got ${JSON.stringify(raw ?? '')}`);
  return id.toLowerCase();
}

/** Repeated `--project ID`, each once, in order. */
export function projectOptions(raw: unknown): number[] {
  const list = Array.isArray(raw) ? raw : [];
  return [...new Set(list.map((v) => positiveInt(v, '--project')))].sort((a, b) => a - b);
}

/** Repeated `--kind KEY` or `--kind KEY,KEY` (the configuration's keys: projects, feature_flags, …), each once, checked against the kinds. */
export function kindOptions(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw.flatMap((v) => String(v).split(',').map((k) => k.trim()).filter((k) => k !== '')) : [];
  const known = kindKeys(KINDS);
  for (const key of list) {
    if (!known.includes(key)) throw new HogsyncError('usage', `--kind takes a key of the configuration: ${known.join(', ')}; got ${JSON.stringify(key)}`);
  }
  return [...new Set(list)];
}

/** An optional number of the sandbox (absent: 0). */
export function sandboxNumber(opts: Record<string, unknown>, name: string, flag: string, min: number, max: number, integer: boolean): number {
  const raw = opts[name];
  if (raw === undefined) return 0;
  return numberOption(raw, flag, { min, max, integer, style: 'between' });
}

export function optionalString(opts: Record<string, unknown>, name: string): string | undefined {
  const v = opts[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** `--target` (repeatable) and `--changed-since`, as the plan use cases take them. */
export function targetOptions(opts: Record<string, unknown>): { addresses: string[]; changedSince?: string } {
  const addresses = Array.isArray(opts.target) ? opts.target.map(String) : [];
  return { addresses, ...(opts.changedSince !== undefined ? { changedSince: String(opts.changedSince) } : {}) };
}

// `drift --since`: the start of the window.
const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
/** The longest window a duration may name (ten years): beyond, it is a typo. */
const MAX_DURATION_MS = 3650 * 86_400_000;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function usage(value: string, why: string): HogsyncError {
  const shown = JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return new HogsyncError('usage', `--since ${shown}: ${why}`);
}

/**
 * The start of a `--since` window: a duration back from `now` (`25h`, `7d`, `90m`, `2w`) or an
 * ISO 8601 date or time (`2026-11-20`, `2026-11-20T06:00:00Z`; a time without an offset is UTC).
 */
export function sinceOption(value: string, now: number): Date {
  const text = value.trim();
  const expected = 'expected a duration such as 25h, 7d, 90m or 2w, or an ISO 8601 time such as 2026-11-20T06:00:00Z';
  const duration = /^(\d{1,7})([mhdw])$/i.exec(text);
  if (duration) {
    const ms = Number(duration[1]) * (UNITS[(duration[2] as string).toLowerCase()] as number);
    if (ms === 0) throw usage(value, 'the window is empty: give a duration longer than 0 (25h, 7d)');
    if (ms > MAX_DURATION_MS) throw usage(value, 'longer than ten years: a full drift (no --since) reads everything anyway');
    return new Date(now - ms);
  }
  const m = ISO.exec(text);
  if (!m) throw usage(value, expected);
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const offset = zone === undefined || zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`;
  const t = Date.parse(iso);
  // Date.parse rolls 2026-02-31 over into March: the fields must come back as written.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  const valid = !Number.isNaN(t) && check.getUTCFullYear() === Number(y) && check.getUTCMonth() === Number(mo) - 1 && check.getUTCDate() === Number(d)
    && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60;
  if (!valid) throw usage(value, `not a date and time (${expected})`);
  if (t > now) throw usage(value, 'is in the future: nothing can have changed since then');
  return new Date(t);
}
