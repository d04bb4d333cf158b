// Runs the real CLI (bin/hogsync.js, built dist/) as a child process: spawnCli() is the one
// way tests start it; runCli() waits for it and fails any run whose output contains the API
// key it was given, or any secret it was given through the environment.
import { spawn, type ChildProcessByStdio, type StdioPipe, type StdioNull } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { BIN, ROOT } from './constants.js';

export { BIN, ROOT } from './constants.js';

export interface SpawnOptions {
  /** Added to this process's environment (NO_COLOR=1 unless given); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Whether the child gets a stdin pipe (default) or none. */
  stdin?: 'pipe' | 'ignore';
}

/** The environment a CLI child runs with. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  // A suite run inside a GitHub Actions job would otherwise see annotations in every child's output.
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: undefined, ...extra })) if (v !== undefined) env[k] = v;
  return env;
}

export function spawnCli(args: string[], options: SpawnOptions & { stdin: 'ignore' }): ChildProcessByStdio<null, Readable, Readable>;
export function spawnCli(args: string[], options?: SpawnOptions): ChildProcessByStdio<Writable, Readable, Readable>;
export function spawnCli(args: string[], options: SpawnOptions = {}): ChildProcessByStdio<Writable | null, Readable, Readable> {
  const stdin: StdioPipe | StdioNull = options.stdin ?? 'pipe';
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: cliEnv(options.env), stdio: [stdin, 'pipe', 'pipe'] }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
}

export interface CliResult { code: number; stdout: string; stderr: string }

/** What a child process printed and how it ended (killed after `timeoutMs`, if given). */
export function collectOutput(child: ChildProcessByStdio<Writable | null, Readable, Readable>, timeoutMs?: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

export async function runCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const env = cliEnv(options.env);
  const child = spawnCli(args, { cwd: options.cwd, env: options.env });
  const output = collectOutput(child, options.timeoutMs ?? 60_000);
  child.stdin.end(options.input ?? '');
  const result = await output;
  // Checked centrally for every CLI run of every test: the API key never leaves the process.
  const key = env.HOGSYNC_API_KEY;
  if (key && key.length >= 8 && (result.stdout.includes(key) || result.stderr.includes(key))) {
    throw new Error(`the API key appeared in the output of hogsync ${args.join(' ')}`);
  }
  // And every secret a test hands the CLI through the environment (a hog function's secret input
  // read by ${env:…}, named *_KEY, *SECRET*, *TOKEN*, *PASSWORD*): never printed, by any run.
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (name === 'HOGSYNC_API_KEY' || value === undefined || value.length < 8 || !/(_KEY|SECRET|TOKEN|PASSWORD)/.test(name)) continue;
    if (result.stdout.includes(value) || result.stderr.includes(value)) throw new Error(`the value of ${name} appeared in the output of hogsync ${args.join(' ')}`);
  }
  return result;
}
