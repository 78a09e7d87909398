import { existsSync, readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

/** An upper-casing echo server: the proxy's target. */
async function startEcho(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.on('data', (d) => s.write(d.toString().toUpperCase()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

interface Client {
  socket: Socket;
  /** Resolves with the next chunk of data. */
  read(): Promise<string>;
  /** Resolves with the error code (or 'closed') when the connection ends. */
  ended: Promise<string>;
}

function connect(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let lastError = 'closed';
    const ended = new Promise<string>((r) => socket.on('close', () => r(lastError)));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      lastError = err.code ?? err.message;
    });
    socket.once('connect', () =>
      resolve({ socket, ended, read: () => new Promise((r) => socket.once('data', (d) => r(d.toString()))) }),
    );
    socket.once('error', reject);
  });
}

/** A client that tries to talk through the proxy: resolves with the reply, or how the connection failed. */
async function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('closed'));
    socket.once('connect', () => socket.write(text));
    socket.once('data', (d) => {
      resolve(d.toString());
      socket.destroy();
    });
  });
}

describe('TCP proxy fake', () => {
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let proxy: TcpProxy;

  beforeAll(async () => {
    echo = await startEcho();
  });
  afterAll(() => new Promise<void>((r) => echo.server.close(() => r())));
  beforeEach(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: echo.port });
  });
  afterEach(() => proxy.close());

  it('listens on its own port and forwards both ways', async () => {
    expect(proxy.port).not.toBe(echo.port);
    expect(await exchange(proxy.port, 'hello')).toBe('HELLO');
    expect(proxy.accepted).toBe(1);
  });

  it('cut() resets open connections on both sides and resets new ones', async () => {
    const client = await connect(proxy.port);
    client.socket.write('one');
    expect(await client.read()).toBe('ONE');
    expect(proxy.openConnections).toBe(1);
    expect(echo.sockets.size).toBe(1);

    await proxy.cut();
    expect(proxy.isCut).toBe(true);
    expect(await client.ended).toBe('ECONNRESET');
    expect(proxy.openConnections).toBe(0);
    // The target side of the connection is gone too.
    while (echo.sockets.size > 0) await new Promise((r) => setTimeout(r, 5));

    expect(['ECONNRESET', 'closed']).toContain(await exchange(proxy.port, 'two'));
    expect(echo.sockets.size).toBe(0);
  });

  it('cut({ newConnections: "refuse" }) refuses connections; restore() listens on the same port again', async () => {
    await proxy.cut({ newConnections: 'refuse' });
    expect(await exchange(proxy.port, 'x')).toBe('ECONNREFUSED');
    await proxy.restore();
    expect(await exchange(proxy.port, 'back')).toBe('BACK');
  });

  it('listens below the kernel\'s ephemeral range, which no outgoing connection takes while the port is released', () => {
    const low = existsSync('/proc/sys/net/ipv4/ip_local_port_range') ? Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) : 32768;
    expect(proxy.port).toBeGreaterThanOrEqual(Math.min(10_000, Math.floor(low / 2)));
    expect(proxy.port).toBeLessThan(low);
  });

  it('restore() forwards new connections again', async () => {
    await proxy.cut();
    await proxy.restore();
    expect(proxy.isCut).toBe(false);
    expect(await exchange(proxy.port, 'again')).toBe('AGAIN');
  });

  it('resets the client when the target is unreachable', async () => {
    const dead = await startTcpProxy({ host: '127.0.0.1', port: proxy.port });
    await proxy.cut({ newConnections: 'refuse' });
    try {
      expect(['ECONNRESET', 'closed']).toContain(await exchange(dead.port, 'nobody'));
    } finally {
      await dead.close();
    }
  });

  it('ends the client gracefully when the target closes the connection', async () => {
    const client = await connect(proxy.port);
    client.socket.write('hi');
    await client.read();
    for (const s of echo.sockets) s.end();
    expect(await client.ended).toBe('closed');
  });

  it('rewrites a URL to point at the proxy and parses URL targets', async () => {
    expect(proxy.rewriteUrl('amqp://guest:guest@127.0.0.1:5672/vhost?heartbeat=5')).toBe(
      `amqp://guest:guest@127.0.0.1:${proxy.port}/vhost?heartbeat=5`,
    );
    const byUrl = await startTcpProxy('amqp://guest:guest@localhost');
    try {
      expect(byUrl.target).toEqual({ host: 'localhost', port: 5672 });
    } finally {
      await byUrl.close();
    }
  });

  it('stops listening on close()', async () => {
    await proxy.close();
    expect(await exchange(proxy.port, 'x')).toBe('ECONNREFUSED');
  });
});
