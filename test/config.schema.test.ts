// The JSON Schema as a document: every property explains itself (editors show these texts),
// the definitions other modules rely on exist, and the annotations hogsync reads are in place.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.js';
import { join } from 'node:path';
import { composeSchema, type SchemaFragment } from '../src/resources/schema-compose.js';
import { KINDS } from '../src/resources/registry.js';

type Node = { [key: string]: unknown; properties?: Record<string, Node>; patternProperties?: Record<string, Node>; items?: Node; $ref?: string; description?: string };
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/hogsync.schema.json'), 'utf8')) as Node & { $defs: Record<string, Node> };

/** Every property schema in the document, with its path. */
function properties(node: Node, path: string, out: [string, Node][] = []): [string, Node][] {
  for (const [name, child] of Object.entries({ ...node.properties, ...node.patternProperties })) {
    out.push([`${path}.${name}`, child]);
    properties(child, `${path}.${name}`, out);
  }
  if (node.items) properties(node.items, `${path}[]`, out);
  return out;
}

describe('hogsync.schema.json', () => {
  const all = [...properties(schema, '$'), ...Object.entries(schema.$defs).flatMap(([name, def]) => properties(def, `$defs.${name}`))];

  it('describes every property', () => {
    expect(all.length).toBeGreaterThan(60);
    const missing = all.filter(([, node]) => typeof node.description !== 'string' || node.description.trim() === '').map(([path]) => path);
    expect(missing).toEqual([]);
  });

  it('is what the kinds compose: the base and each registered kind\'s own fragment (npm run build writes it)', () => {
    const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;
    const composed = composeSchema(read('src/resources/base.schema.json'), KINDS, (kind) => read(`src/resources/${kind.name}/schema.json`) as unknown as SchemaFragment);
    expect(schema).toEqual(composed);
    // Key order is part of it: editors complete keys, and fmt writes them, in the schema's order.
    expect(JSON.stringify(schema)).toBe(JSON.stringify(composed));
  });

  it('describes every definition', () => {
    for (const [name, def] of Object.entries(schema.$defs)) expect(def.description, name).toBeTruthy();
  });

  it('keeps the definitions the resource kinds read', () => {
    expect(Object.keys(schema.$defs)).toEqual(expect.arrayContaining(['ensure', 'project', 'proxy_record', 'role', 'feature_flag', 'flag_filters', 'prune']));
  });

  it('marks the Slack webhook sensitive and gives compare rules', () => {
    const project = schema.$defs.project!.properties!;
    expect(project.slack_incoming_webhook!['x-sensitive']).toBe(true);
    expect(project.session_recording_sample_rate!['x-normalize']).toBe('decimal');
    expect(schema.$defs.proxy_record!.properties!.domain!['x-normalize']).toBe('domain');
  });

  it('explains every pattern in words (x-expected) except the flag key, whose pattern is the explanation', () => {
    const patterned = all.filter(([, node]) => typeof node.pattern === 'string');
    expect(patterned.filter(([, node]) => typeof node['x-expected'] !== 'string').map(([p]) => p)).toEqual(['$defs.feature_flag.key']);
  });
});
