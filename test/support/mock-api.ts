// A client wired to an undici MockAgent (no network), recording the waits it asks for and
// the events it emits, so retry and pagination tests can assert them without real time.
import { MockAgent, type Interceptable } from 'undici';
import { ApiClient, type ClientEvent, type ClientOptions } from '../../src/http/client.js';

export const ORIGIN = 'https://api.test';
export const KEY = 'phx_Sup3rS3cretKeyForTests0123456789';
export const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };

export interface MockApi {
  agent: MockAgent;
  pool: Interceptable;
  client: ApiClient;
  sleeps: number[];
  events: ClientEvent[];
}

const open: MockAgent[] = [];

/** Close every MockAgent made since the last call (for afterEach). */
export async function closeMockApis(): Promise<void> {
  await Promise.all(open.splice(0).map((agent) => agent.close()));
}

export function mockApi(options: Partial<ClientOptions> = {}): MockApi {
  const agent = new MockAgent();
  open.push(agent);
  agent.disableNetConnect();
  const sleeps: number[] = [];
  const events: ClientEvent[] = [];
  const client = new ApiClient({
    baseUrl: ORIGIN,
    apiKey: KEY,
    dispatcher: agent,
    // No client-side rate limit unless a test asks: the recorded sleeps are then retry waits only.
    requestsPerMinute: Infinity,
    requestsPerHour: Infinity,
    random: () => 0.5,
    sleep: async (ms) => { sleeps.push(ms); },
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { agent, pool: agent.get(ORIGIN), client, sleeps, events };
}

/** An Error shaped like the ones Node raises for a failed socket. */
export function socketError(code: string): Error {
  return Object.assign(new Error(`socket failure ${code}`), { code });
}

/** The rejection of `p`, failing the test if it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string; request?: { method: string; path: string; status?: number }; format(): string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string; request?: { method: string; path: string; status?: number }; format(): string };
  }
  throw new Error('expected a rejection');
}
