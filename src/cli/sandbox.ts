// `hogsync sandbox`: runs the local API emulator until SIGINT or SIGTERM. stdout carries exactly
// two lines, HOGSYNC_BASE_URL=… and HOGSYNC_API_KEY=…, so a shell can export them; everything
// else (the start notice, --verbose request lines) goes to stderr.
import { HogsyncError } from '../errors.js';
import { SeedError } from '../sandbox/seed.js';
import { SandboxStartError, startSandbox, type SandboxHandle } from '../sandbox/server.js';
import { optionalString, sandboxNumber as numberOption } from './options.js';

async function start(opts: Record<string, unknown>): Promise<SandboxHandle> {
  const verbose = opts.verbose === true;
  try {
    return await startSandbox({
      port: numberOption(opts, 'port', '--port', 0, 65535, true),
      host: optionalString(opts, 'host') ?? '127.0.0.1',
      statePath: optionalString(opts, 'state'),
      seed: optionalString(opts, 'seed'),
      latencyMs: numberOption(opts, 'latency', '--latency', 0, 600_000, false),
      faultRate: numberOption(opts, 'faultRate', '--fault-rate', 0, 1, false),
      rateLimitPerMinute: numberOption(opts, 'rateLimit', '--rate-limit', 0, 1_000_000_000, true),
      rateLimitPerHour: numberOption(opts, 'rateLimitHourly', '--rate-limit-hourly', 0, 1_000_000_000, true),
      ...(opts.insightRateLimit === undefined ? {} : { insightRateLimitPerMinute: numberOption(opts, 'insightRateLimit', '--insight-rate-limit', 0, 1_000_000_000, true) }),
      ...(opts.insightRateLimitHourly === undefined ? {} : { insightRateLimitPerHour: numberOption(opts, 'insightRateLimitHourly', '--insight-rate-limit-hourly', 0, 1_000_000_000, true) }),
      deletionDelaySeconds: numberOption(opts, 'deletionDelay', '--deletion-delay', 0, 86_400, false),
      log: verbose ? (line) => process.stderr.write(`${line}\n`) : undefined,
    });
  } catch (err) {
    if (err instanceof SandboxStartError) throw new HogsyncError('usage', err.message, { cause: err });
    if (err instanceof SeedError) throw new HogsyncError('config', err.message, { cause: err });
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new HogsyncError('usage', `port ${String(opts.port)} is already in use (use --port 0 for any free port)`, { cause: err });
    }
    throw err instanceof HogsyncError ? err : new HogsyncError('config', (err as Error).message, { cause: err });
  }
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export async function run(_args: string[], opts: Record<string, unknown>): Promise<number> {
  const handle = await start(opts);
  const signal = waitForSignal();
  process.stdout.write(`HOGSYNC_BASE_URL=${handle.baseUrl}\nHOGSYNC_API_KEY=${handle.apiKey}\n`);
  const from = { state: `state file ${String(opts.state)}`, seed: `seed ${String(opts.seed)}`, default: 'the default workspace' }[handle.origin];
  const persisted = opts.state ? `, saving to ${String(opts.state)}` : ', in memory only';
  process.stderr.write(`hogsync sandbox: listening on ${handle.baseUrl} (from ${from}${persisted}); stop with Ctrl-C\n`);
  if (handle.origin === 'state' && opts.seed) process.stderr.write(`hogsync sandbox: --seed ignored: the state file already holds a workspace\n`);
  const received = await signal;
  await handle.stop();
  process.stderr.write(`hogsync sandbox: stopped (${received})\n`);
  return 0;
}
