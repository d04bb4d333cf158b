// The one port through which everything above src/http/ talks to the API: reading live
// state (src/state/), running a plan's changes (src/apply/) and the kinds' previews. The
// ApiClient implements it; tests may pass anything of this shape.
import type { HttpMethod } from './transport.js';

export type { HttpMethod } from './transport.js';

export interface PortRequestOptions {
  body?: unknown;
  /** Statuses returned instead of thrown, besides 2xx (e.g. 404 to test for existence). */
  okStatuses?: number[];
  /** A POST that changes nothing (a computation) may be replayed too. */
  idempotent?: boolean;
}

export interface ApiPort {
  /** One call; the body is parsed JSON (`null` for an empty body), unchecked. */
  request<T = unknown>(method: HttpMethod, path: string, options?: PortRequestOptions): Promise<{ status: number; body: T }>;
  /** Every item of a list, following pagination. */
  listAll<T = Record<string, unknown>>(path: string): Promise<T[]>;
}
