// Saved plans (`plan --out FILE`, `apply --plan FILE`): reading one back defensively, and
// naming what changed when it no longer matches the files and the live workspace.
import { HogsyncError } from '../errors.js';
import type { ManagedItem, Plan } from './types.js';

export interface SavedPlan { fingerprint: string; base_url: string; sources: string[]; managed: ManagedItem[]; changes: number }

export function parseSavedPlan(text: string, file: string): SavedPlan {
  const bad = (why: string) => new HogsyncError('usage', `${file} is not a usable hogsync plan: ${why}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw bad('it is not valid JSON (truncated or edited?)');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw bad('it is not a JSON object');
  const p = doc as Record<string, unknown>;
  if (p.format_version !== '1') throw bad(`format_version is ${JSON.stringify(p.format_version ?? null)}, this hogsync reads "1"`);
  if (p.kind !== 'plan') throw bad(`its kind is ${JSON.stringify(p.kind ?? null)}, not "plan"`);
  if (typeof p.fingerprint !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(p.fingerprint)) throw bad('its fingerprint is missing or malformed');
  if (typeof p.base_url !== 'string') throw bad('base_url is missing');
  if (!Array.isArray(p.sources) || !p.sources.every((s) => typeof s === 'string')) throw bad('sources must be a list of file names');
  if (!Array.isArray(p.managed) || !p.managed.every(isManagedItem)) throw bad('managed must be a list of {address, digest}');
  if (!Array.isArray(p.changes)) throw bad('changes must be a list');
  return { fingerprint: p.fingerprint, base_url: p.base_url, sources: p.sources as string[], managed: p.managed as ManagedItem[], changes: p.changes.length };
}

function isManagedItem(v: unknown): v is ManagedItem {
  return v !== null && typeof v === 'object' && typeof (v as ManagedItem).address === 'string' && typeof (v as ManagedItem).digest === 'string';
}

/** Addresses whose desired or live state differs between a saved plan and the current plan. */
export function staleItems(saved: SavedPlan, current: Plan): string[] {
  const before = new Map(saved.managed.map((m) => [m.address, m.digest]));
  const now = new Map(current.managed.map((m) => [m.address, m.digest]));
  const changed: string[] = [];
  for (const [address, digest] of now) {
    if (!before.has(address)) changed.push(`${address} (new since the plan)`);
    else if (before.get(address) !== digest) changed.push(`${address} (changed since the plan)`);
  }
  for (const address of before.keys()) if (!now.has(address)) changed.push(`${address} (gone since the plan)`);
  return changed.sort();
}
