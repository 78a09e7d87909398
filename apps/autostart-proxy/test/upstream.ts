// A managed service's own HTTP server for the tests: it answers only while its workload runs (the fake
// engine's container, or the fake Kubernetes Deployment's ready pods), like a real container whose
// port is closed while it is stopped. `/health` is its health-check path; a browser (Accept:
// text/html) gets a page; other requests get a JSON echo of what arrived; upgrades are echoed.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestUpstream {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startUpstream(name: string, isUp: () => boolean): Promise<TestUpstream> {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (!isUp()) {
      req.socket.destroy();
      return;
    }
    state.requests++;
    if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if ((req.headers.accept ?? '').includes('text/html')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${name}</title><h1 id="app">hello from ${name}</h1>`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': name, 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ service: name, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    if (!isUp()) {
      socket.destroy();
      return;
    }
    socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: Upgrade\r\n\r\n');
    socket.on('data', (d) => socket.write(d));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
