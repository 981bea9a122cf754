import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it, its JSON body parsed. */
export interface SeenRequest<B> {
  readonly n: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: B;
  readonly arrivedAt: number;
}

/** What the test server does with request n (1-based): answer, or never answer (`'hang'`). */
export type Handler<B> = (request: SeenRequest<B>, res: ServerResponse) => void | 'hang';

export interface TestServer<B> {
  readonly baseUrl: string;
  readonly requests: SeenRequest<B>[];
  /** Requests being handled at once, at most. */
  readonly maxInFlight: () => number;
  /** When each answered request's response was finished. */
  readonly finishedAt: number[];
}

const open = new Set<Server>();

/** Closes every server started by startJsonServer (call it in afterEach). */
export async function closeJsonServers(): Promise<void> {
  const servers = [...open];
  open.clear();
  await Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise<void>((resolve) => s.close(() => resolve()));
    }),
  );
}

/** A real HTTP server on 127.0.0.1 (a free port) that records JSON requests and answers through `handler` after `answerAfterMs`. */
export async function startJsonServer<B>(handler: Handler<B>, answerAfterMs = 5): Promise<TestServer<B>> {
  const requests: SeenRequest<B>[] = [];
  const finishedAt: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: SeenRequest<B> = {
        n: requests.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as B,
        arrivedAt: Date.now(),
      };
      requests.push(seen);
      res.on('finish', () => finishedAt.push(Date.now()));
      // A short pause, so that overlapping requests would be seen in flight together.
      setTimeout(() => handler(seen, res), answerAfterMs);
    });
  });
  open.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests, finishedAt, maxInFlight: () => maxInFlight };
}

/** A clock that only moves when the provider sleeps; every requested wait is recorded. */
export function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    now: () => new Date(t),
  };
}
