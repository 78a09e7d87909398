import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A website on loopback for crawl tests: routes map a path to a body (HTML by default), a
 * `{status, type, body, delayMs}` description, or a function of the origin. Every request is
 * recorded (`hits`), so tests can tell what the crawler fetched.
 */
export interface Route {
  status?: number;
  type?: string;
  body: string;
  delayMs?: number;
}

export interface TestSite {
  origin: string;
  hits: string[];
  close(): Promise<void>;
}

export async function startSite(routes: Record<string, string | Route | ((origin: string) => string | Route)>): Promise<TestSite> {
  const hits: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('#')[0];
    hits.push(path);
    const found = routes[path] ?? routes[path.split('?')[0]];
    const route: Route = !found
      ? { status: 404, body: 'not found', type: 'text/plain' }
      : typeof found === 'function'
        ? toRoute(found(origin))
        : toRoute(found);
    const send = () => {
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8' });
      res.end(route.body);
    };
    if (route.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) send();
      }, route.delayMs);
      timers.add(t);
    } else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    close: async () => {
      timers.forEach(clearTimeout);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function toRoute(r: string | Route): Route {
  return typeof r === 'string' ? { body: r } : r;
}

/** An HTML page with a real article body (Readability needs some prose) and the given links. */
export function page(title: string, words: string, links: string[] = [], extra = ''): string {
  const prose = `${words} `.repeat(3) + 'This paragraph explains the topic of the page in enough words for a reader to follow it. '.repeat(4);
  return `<!doctype html><html><head><title>${title}</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>${prose}</p><h2>Details of ${title}</h2><p>${prose}</p>${extra}</article></main>
<footer>footer text</footer></body></html>`;
}
