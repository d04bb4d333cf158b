// A loopback proxy in front of a sandbox that misbehaves on purpose, per request: it loses the
// answer (the request reaches the sandbox, which acts on it, then the connection is dropped
// before the answer gets back, as a reset or a timeout does in production), or answers in the
// sandbox's place (which then never sees the request). Anything else passes through.
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyFault = 'lose-answer' | { status: number; body: string } | undefined;

export interface FaultyProxy {
  baseUrl: string;
  /** Requests (method and path) whose answer was lost, in order. */
  lost: string[];
  close(): Promise<void>;
}

export async function faultyProxy(target: string, fault: (req: IncomingMessage) => ProxyFault): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const lost: string[] = [];
  const server = createServer((req, res) => {
    const f = fault(req);
    if (f !== undefined && f !== 'lose-answer') {
      req.resume();
      res.writeHead(f.status, { 'content-type': 'application/json' }).end(f.body);
      return;
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (f === 'lose-answer') {
        lost.push(`${req.method} ${req.url}`);
        answer.resume();
        answer.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.socket?.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    lost,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
