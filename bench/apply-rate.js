// apply_rate: 300 updates against a sandbox throttled to R requests/minute, with the client at R.
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BIN, ORG, startSandbox, timed } from './support.js';

const CHANGES = 300;

export async function applyRate(rate = Number(process.env.BENCH_APPLY_RATE ?? 240)) {
  const dir = mkdtempSync(join(tmpdir(), 'hogsync-bench-'));
  try {
    const roles = Array.from({ length: CHANGES }, (_, i) => ({ name: `Role ${i}`, feature_flags_access_level: 21 }));
    writeFileSync(join(dir, 'seed.json'), JSON.stringify({ organizations: [{ id: ORG, projects: [{ id: 12345 }], roles }] }));
    writeFileSync(join(dir, 'hogsync.yaml'), stringify({ organization: ORG, roles: roles.map((r) => ({ ...r, feature_flags_access_level: 37 })) }));
    const sandbox = await startSandbox(['--seed', join(dir, 'seed.json'), '--rate-limit', String(rate)]);
    try {
      const r = await timed(process.execPath, [BIN, 'apply', join(dir, 'hogsync.yaml'), '--auto-approve', '--format', 'json', '--max-rate', String(rate)], { stdout: 'pipe', env: sandbox.env });
      const stats = await sandbox.stats();
      const report = r.stdout ? JSON.parse(r.stdout) : { summary: {} };
      const achieved = stats.requests / (r.ms / 60000);
      return {
        rate_per_minute: rate,
        changes: CHANGES,
        applied: report.summary.applied ?? 0,
        requests: stats.requests,
        wall_ms: Math.round(r.ms),
        achieved_per_minute: Math.round(achieved),
        achieved_share: Math.round((achieved / rate) * 100) / 100,
        throttled_429: stats.throttled,
        exit_code: r.code,
        targets: { achieved_share: 0.9, throttled_429: 0 },
      };
    } finally {
      await sandbox.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
