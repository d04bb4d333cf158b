// The sandbox's shared parts are a kit below the kinds: none imports a kind's module (a kind's
// model imports the kit, so the reverse would be an import circle). Only models.ts reads the
// registry, which is the one file that lists the kinds.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../src/sandbox/server.js';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('sandbox kit', () => {
  it('imports no kind module; only models.ts reads the registry', () => {
    const offenders: string[] = [];
    for (const file of files('src/sandbox')) {
      for (const m of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
        const target = m[1] as string;
        if (!target.includes('resources/')) continue;
        if (relative('src/sandbox', file) === 'models.ts' && target.endsWith('resources/registry.js')) continue;
        offenders.push(`${file} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('makes the default workspace and a seed project through the project model', async () => {
    const bare = await startSandbox({ port: 0 });
    const seeded = await startSandbox({ port: 0, seed: { organizations: [{ projects: [{ id: 7, name: 'Seeded', timezone: 'Europe/Paris' }] }] } });
    try {
      expect(bare.store.snapshot().projects.map((p) => [p.id, p.name])).toEqual([[12345, 'Web app'], [12346, 'Mobile app']]);
      expect(seeded.store.snapshot().projects.map((p) => [p.id, p.name, p.timezone])).toEqual([[7, 'Seeded', 'Europe/Paris']]);
      await expect(startSandbox({ port: 0, seed: { organizations: [{ projects: [{ nonsense: 1 }] }] } })).rejects.toThrow(/projects\[0\]\.nonsense: not a writable project field/);
    } finally {
      await bare.stop();
      await seeded.stop();
    }
  });
});
