// The requests the CLI sent to a sandbox (its user agent), recorded as they arrive, and what the
// OpenAPI fixture says of them: e2e files that add endpoints check every request they caused.
import type { IncomingMessage } from 'node:http';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { validateRequest } from './openapi.js';
import { tolerated } from './openapi-tolerated.js';

export interface SentRequest { method: string; path: string; body: unknown }

/** A list that fills with the CLI's requests whose path matches `paths`, for the sandbox's life. */
export function recordCliRequests(sandbox: SandboxHandle, paths: RegExp): SentRequest[] {
  const sent: SentRequest[] = [];
  sandbox.server.on('request', (req: IncomingMessage) => {
    if (!String(req.headers['user-agent']).startsWith('hogsync/') || !paths.test(req.url ?? '')) return;
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
    req.on('end', () => { sent.push({ method: req.method ?? '', path: req.url ?? '', body: text === '' ? undefined : JSON.parse(text) as unknown }); });
  });
  return sent;
}

/** What the fixture refuses of the requests, less the differences kept on purpose: `METHOD PATH: problem` each. */
export function fixtureProblems(sent: readonly SentRequest[]): string[] {
  return sent.flatMap((r) => validateRequest(r.method, r.path, r.body).filter((p) => !tolerated(r.method, r.path, p)).map((p) => `${r.method} ${r.path}: ${p}`));
}
