// Runs the real CLI (bin/hogsync.js, built dist/) as a child process, and fails any run whose
// output contains the API key it was given.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/hogsync.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult { code: number; stdout: string; stderr: string }

export function runCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', ...options.env })) if (v !== undefined) env[k] = v;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      // Checked centrally for every CLI run of every test: the API key never leaves the process.
      const key = env.HOGSYNC_API_KEY;
      if (key && key.length >= 8 && (stdout.includes(key) || stderr.includes(key))) {
        reject(new Error(`the API key appeared in the output of hogsync ${args.join(' ')}`));
        return;
      }
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
