// Shared pieces of the benchmarks: a sandbox process, its request counters, medians.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/hogsync.js', import.meta.url));
export const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';

/** Starts `hogsync sandbox` as its own process (so it does not share the CPU of what is measured). */
export function startSandbox(args) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    const env = {};
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^(HOGSYNC_BASE_URL|HOGSYNC_API_KEY)=(.*)$/.exec(line);
      if (m) env[m[1]] = m[2];
      if (env.HOGSYNC_BASE_URL && env.HOGSYNC_API_KEY) {
        resolve({
          env,
          stats: async () => (await fetch(`${env.HOGSYNC_BASE_URL}/_sandbox/stats`)).json(),
          resetStats: async () => { await fetch(`${env.HOGSYNC_BASE_URL}/_sandbox/reset-stats`, { method: 'POST' }); },
          stop: () => new Promise((done) => { child.on('exit', done); child.kill('SIGTERM'); }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited early (${code})`)));
  });
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Runs a command and resolves with its exit code and wall time in ms. */
export function timed(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', options.stdout ?? 'ignore', 'ignore'], env: { ...process.env, ...options.env } });
    let out = '';
    if (options.stdout === 'pipe') child.stdout.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: out }));
  });
}
