// Every YAML file of the repository's examples and test fixtures: the corpus the loader's fast
// paths are checked against the full parser on.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

export function yamlCorpus(): string[] {
  return [...yamlFiles(join(ROOT, 'examples')), ...yamlFiles(join(ROOT, 'test/fixtures'))];
}
