import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake truck position feed (the share links GPS platforms give out) for tests and benches: node:http
 * on 127.0.0.1, port 0. `GET /t/<id>` answers the truck's position as JSON
 * `{lat, lon, speed, recorded_at, driver, eta?, location?}`; a truck set to a number answers that
 * HTTP status instead (410: the link expired), `'hang'` never answers, `'junk'` answers text that is
 * not JSON; unknown ids answer 404. `delayMs` delays every answer; `requests` counts calls per id.
 */
export interface FakeTruckPosition {
  lat: number;
  lon: number;
  speed: number;
  recorded_at: string;
  driver?: string;
  eta?: string;
  location?: string;
}

export type FakeTruck = FakeTruckPosition | number | 'hang' | 'junk';

export interface FakeTrackingFeed {
  url: string;
  /** The share link of a truck: `${url}/t/<id>`. */
  link(id: string): string;
  trucks: Map<string, FakeTruck>;
  requests: Map<string, number>;
  delayMs: number;
  close(): Promise<void>;
}

export async function startFakeTrackingFeed(trucks: Record<string, FakeTruck> = {}, opts: { delayMs?: number } = {}): Promise<FakeTrackingFeed> {
  const pending = new Set<ServerResponse>();
  const feed: FakeTrackingFeed = {
    url: '',
    link: (id) => `${feed.url}/t/${encodeURIComponent(id)}`,
    trucks: new Map(Object.entries(trucks)),
    requests: new Map(),
    delayMs: opts.delayMs ?? 0,
    close: async () => undefined,
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/t\/([^/?]+)/.exec(req.url ?? '');
    const id = match ? decodeURIComponent(match[1]) : '';
    feed.requests.set(id, (feed.requests.get(id) ?? 0) + 1);
    const truck = feed.trucks.get(id);
    if (truck === 'hang') {
      pending.add(res);
      res.on('close', () => pending.delete(res));
      return;
    }
    if (feed.delayMs) await new Promise((r) => setTimeout(r, feed.delayMs));
    if (truck === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown link"}');
    if (truck === 'junk') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    if (typeof truck === 'number') return void res.writeHead(truck, { 'content-type': 'application/json' }).end(`{"status":${truck}}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(truck));
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feed.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  feed.close = () =>
    new Promise<void>((resolve) => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return feed;
}
