// The silent cascade made loud: the API hard-deletes an insight's alerts when the insight is
// deleted or its query changes to a kind that cannot carry one, and says nothing. The insight's
// preview asks which alerts it has (one list, filtered by the insight) only for such a change,
// and the plan names each one beside it.
import type { KindPort, PreviewInput, PreviewResult } from '../kind.js';
import { carriesAlerts } from './rules.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether an insight's planned change deletes its alerts in the API. */
export function deletesAlerts(input: Pick<PreviewInput, 'action' | 'values' | 'live'>): boolean {
  if (input.action === 'delete') return true;
  return input.action === 'update' && 'query' in input.values && !carriesAlerts(input.values.query) && carriesAlerts(input.live?.query);
}

export async function alertsDeletedWith(input: PreviewInput, port: KindPort): Promise<PreviewResult | undefined> {
  const id = input.live?.id;
  if (!deletesAlerts(input) || id === undefined || input.scope.project === null) return undefined;
  const path = `/api/projects/${encodeURIComponent(String(input.scope.project))}/alerts/?insight=${encodeURIComponent(String(id))}`;
  try {
    const names = (await port.listAll<unknown>(path)).flatMap((r) => (isObj(r) && typeof r.name === 'string' ? [r.name] : []));
    if (names.length === 0) return undefined;
    // The insight's address without its kind (`ORG/PROJECT/NAME`) is where its alerts' addresses start.
    const rest = input.address.slice(input.address.indexOf(':') + 1);
    return { annotations: { also_deletes: names.map((n) => `alert:${rest}/${n}`) } };
  } catch (err) {
    return { warning: `${input.address}: could not read the insight's alerts, which the API deletes with this change (${(err as Error).message})` };
  }
}
