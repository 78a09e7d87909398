import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logClockNs, rfc3339Nano } from './log-clock';

/**
 * A fake Docker Engine API on a unix socket (a temp path) that changes state like the real engine,
 * for the containers lib and the apps built on it. Served paths (with or without a `/v1.xx` prefix):
 * `GET /_ping`, `GET /containers/json` (`all`, `filters` by `name`, `label`, `id`),
 * `GET /containers/{id}/json`, `POST /containers/{id}/start|stop?t=|unpause`,
 * `GET /containers/{id}/logs` (multiplexed stream frames unless the container has a TTY; `tail`,
 * `timestamps` (RFC 3339 with nanoseconds), `since` (seconds since the epoch, with a fraction) and
 * `follow`: lines written later (`appendLog`) are streamed until the container stops),
 * `GET /events` (a stream of JSON lines, `filters` by `type`, `event`, `label`: `create`, `start`,
 * `die` with its `exitCode`, `stop`, `destroy`, as the engine sends them; `since` is ignored).
 * With `tls` it listens on loopback TCP over TLS and requires a client certificate signed by `ca`, as
 * a daemon started with `--tlsverify` does (`dockerHost` is then `tcp://127.0.0.1:<port>`).
 * `{id}` is an id, an id prefix or a name, as on the real engine. Answers as the engine does:
 * 204 on success, 304 for a start of a running or a stop of a stopped container, 404
 * `{"message":"No such container: x"}`, 409 to start a paused or unpause a not paused container.
 *
 *   const engine = await startFakeDockerEngine({ containers: [
 *     { name: 'whisper', health: { becomes: 'healthy', afterMs: 2000 } },   // HEALTHCHECK: starting → healthy
 *     { name: 'broken', health: { becomes: 'unhealthy', afterMs: 500 } },   // never healthy
 *     { name: 'plain', labels: { 'com.example.group': 'a' } },              // no HEALTHCHECK
 *   ] });
 *   // DOCKER_HOST = engine.dockerHost   (unix:///tmp/…/docker.sock)
 *   engine.startCalls('whisper');   // POST …/start requests that reached this container
 *   engine.container('whisper').State.Health?.Status;
 *   engine.startFromOutside('whisper'); engine.exit('whisper', 0); engine.removeContainer('whisper');   // `docker start|stop|rm` by someone else
 *   await engine.close();
 */

export interface FakeContainerSpec {
  name: string;
  /** 64 hex characters; random when unset. */
  id?: string;
  image?: string;
  labels?: Record<string, string>;
  /** Initial engine state; default `exited` (stopped). */
  state?: 'created' | 'running' | 'paused' | 'exited' | 'dead';
  /**
   * A HEALTHCHECK: after each start the health is `starting`, then becomes `becomes` after `afterMs`
   * (default 0). `becomes: 'starting'` never leaves `starting`. No `health` = no HEALTHCHECK.
   */
  health?: { becomes: 'healthy' | 'unhealthy' | 'starting'; afterMs?: number };
  /** Log lines the container has written, in order (time: when; default its creation, a nanosecond apart). */
  logs?: Array<{ stream: 'stdout' | 'stderr'; text: string; time?: Date }>;
  /** Container created with a TTY: logs come back raw, not multiplexed. */
  tty?: boolean;
  /**
   * How long the process takes to exit after SIGTERM; default 0. A stop answers when it has exited,
   * or kills it (exit code 137) when the stop's `t` (default 10 s) runs out first.
   */
  stopsAfterMs?: number;
  /** The next start fails with this status and message (the engine's 500 when a process cannot start). */
  failStart?: { status: number; message: string };
}

export interface FakeContainerInspect {
  Id: string;
  Name: string;
  Created: string;
  Config: { Image: string; Labels: Record<string, string>; Tty: boolean; Healthcheck?: { Test: string[] } };
  State: {
    Status: string;
    Running: boolean;
    Paused: boolean;
    Restarting: boolean;
    OOMKilled: boolean;
    Dead: boolean;
    Pid: number;
    ExitCode: number;
    Error: string;
    StartedAt: string;
    FinishedAt: string;
    Health?: { Status: string; FailingStreak: number; Log: Array<{ Start: string; End: string; ExitCode: number; Output: string }> };
  };
}

export interface RecordedDockerRequest {
  method: string;
  /** Path without the version prefix. */
  path: string;
  query: Record<string, string>;
  /** The status answered. */
  status?: number;
}

export interface FakeDockerEngine {
  socketPath: string;
  /** `unix://<socketPath>`, the value for DOCKER_HOST. */
  dockerHost: string;
  requests: RecordedDockerRequest[];
  /** The container as `GET /containers/{id}/json` answers it (a copy). */
  container(nameOrId: string): FakeContainerInspect;
  /** Start requests that reached this container (304 answers included). */
  startCalls(nameOrId: string): number;
  /** Stop requests that reached this container, with their `t`. */
  stopCalls(nameOrId: string): Array<{ t?: number }>;
  addContainer(spec: FakeContainerSpec): FakeContainerInspect;
  /** Changes a container's health now (e.g. a running service that starts failing its check). */
  setHealth(nameOrId: string, status: 'starting' | 'healthy' | 'unhealthy'): void;
  /** The container's process exits on its own (crash: code ≠ 0), or `docker stop` from outside (code 0): a `die` event. */
  exit(nameOrId: string, exitCode: number): void;
  /** `docker start` by someone else: running, a `start` event, not counted in startCalls. */
  startFromOutside(nameOrId: string): void;
  /** `docker rm -f`: gone, a `destroy` event. */
  removeContainer(nameOrId: string): void;
  /** The container writes a log line now (streamed to `follow` readers); its timestamp is returned. */
  appendLog(nameOrId: string, line: string | { stream: 'stdout' | 'stderr'; text: string }): string;
  /** Clients following the container's logs now. */
  logFollowers(nameOrId: string): number;
  /** Clients reading `GET /events` now. */
  eventStreams(): number;
  /** Ends every events stream (an engine restart, a proxy in between timing out). */
  dropEventStreams(): void;
  close(): Promise<void>;
}

interface StoredLogLine {
  stream: 'stdout' | 'stderr';
  text: string;
  /** RFC 3339 with nanoseconds, as the engine writes it */
  timestamp: string;
  /** for `since`: [seconds, nanoseconds] */
  at: [number, number];
}

interface LogFollower {
  res: ServerResponse;
  stdout: boolean;
  stderr: boolean;
  timestamps: boolean;
}

interface FakeContainer {
  spec: FakeContainerSpec;
  inspect: FakeContainerInspect;
  logLines: StoredLogLine[];
  followers: Set<LogFollower>;
  starts: number;
  stops: Array<{ t?: number }>;
  timer?: NodeJS.Timeout;
}

const NEVER = '0001-01-01T00:00:00Z';

/** PEM texts of the daemon's certificate and key, and the CA its clients' certificates must be signed by. */
export interface FakeDockerTls {
  cert: string;
  key: string;
  ca: string;
}

interface EventClient {
  res: ServerResponse;
  types?: string[];
  events?: string[];
  labels?: string[];
}

export async function startFakeDockerEngine(opts: { containers?: FakeContainerSpec[]; tls?: FakeDockerTls } = {}): Promise<FakeDockerEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-docker-'));
  const socketPath = join(dir, 'docker.sock');
  const containers: FakeContainer[] = [];
  const requests: RecordedDockerRequest[] = [];
  const eventClients = new Set<EventClient>();

  const emit = (action: string, c: FakeContainer, extra: Record<string, string> = {}): void => {
    const nowMs = Date.now();
    const attributes = { ...c.inspect.Config.Labels, image: c.inspect.Config.Image, name: c.inspect.Name.slice(1), ...extra };
    const event = {
      status: action,
      id: c.inspect.Id,
      from: c.inspect.Config.Image,
      Type: 'container',
      Action: action,
      Actor: { ID: c.inspect.Id, Attributes: attributes },
      scope: 'local',
      time: Math.floor(nowMs / 1000),
      timeNano: nowMs * 1_000_000,
    };
    const line = `${JSON.stringify(event)}\n`;
    for (const client of eventClients) {
      if (client.types && !client.types.includes('container')) continue;
      if (client.events && !client.events.includes(action)) continue;
      if (client.labels && !client.labels.every((f) => labelMatches(attributes, f))) continue;
      client.res.write(line);
    }
  };

  const find = (ref: string): FakeContainer | undefined => {
    const name = ref.replace(/^\//, '');
    return (
      containers.find((c) => c.inspect.Id === ref || c.inspect.Name === `/${name}`) ??
      (ref.length >= 3 ? containers.find((c) => c.inspect.Id.startsWith(ref)) : undefined)
    );
  };
  const must = (ref: string): FakeContainer => {
    const c = find(ref);
    if (!c) throw new Error(`fake docker engine: no container ${ref}`);
    return c;
  };

  const setHealth = (c: FakeContainer, status: string, output: string, exitCode: number): void => {
    const health = c.inspect.State.Health;
    if (!health) return;
    const now = new Date().toISOString();
    health.Status = status;
    health.FailingStreak = exitCode === 0 ? 0 : health.FailingStreak + 1;
    health.Log = [...health.Log, { Start: now, End: now, ExitCode: exitCode, Output: output }].slice(-5);
  };

  const run = (c: FakeContainer): void => {
    const s = c.inspect.State;
    Object.assign(s, { Status: 'running', Running: true, Paused: false, Dead: false, Pid: 1000 + containers.indexOf(c), ExitCode: 0, Error: '' });
    s.StartedAt = new Date().toISOString();
    s.FinishedAt = NEVER;
    emit('start', c);
    const check = c.spec.health;
    if (!check || !s.Health) return;
    s.Health.Status = 'starting';
    s.Health.FailingStreak = 0;
    if (check.becomes === 'starting') return;
    c.timer = setTimeout(() => {
      c.timer = undefined;
      if (check.becomes === 'healthy') setHealth(c, 'healthy', 'ok', 0);
      else setHealth(c, 'unhealthy', 'health check failed: connection refused', 1);
    }, check.afterMs ?? 0);
    c.timer.unref();
  };

  const halt = (c: FakeContainer, exitCode: number): void => {
    clearTimeout(c.timer);
    c.timer = undefined;
    const s = c.inspect.State;
    Object.assign(s, { Status: 'exited', Running: false, Paused: false, Pid: 0, ExitCode: exitCode, FinishedAt: new Date().toISOString() });
    if (s.Health) {
      s.Health.Status = 'unhealthy';
      s.Health.FailingStreak = 0;
    }
    emit('die', c, { exitCode: String(exitCode) });
    // The engine ends a follow stream when its container stops.
    for (const f of c.followers) f.res.end();
    c.followers.clear();
  };

  const addContainer = (spec: FakeContainerSpec): FakeContainerInspect => {
    const id = spec.id ?? randomBytes(32).toString('hex');
    const inspect: FakeContainerInspect = {
      Id: id,
      Name: `/${spec.name}`,
      Created: new Date().toISOString(),
      Config: {
        Image: spec.image ?? `${spec.name}:latest`,
        Labels: { ...spec.labels },
        Tty: spec.tty ?? false,
        ...(spec.health ? { Healthcheck: { Test: ['CMD-SHELL', 'curl -f http://localhost/health'] } } : {}),
      },
      State: {
        Status: 'created',
        Running: false,
        Paused: false,
        Restarting: false,
        OOMKilled: false,
        Dead: false,
        Pid: 0,
        ExitCode: 0,
        Error: '',
        StartedAt: NEVER,
        FinishedAt: NEVER,
        ...(spec.health ? { Health: { Status: 'starting', FailingStreak: 0, Log: [] } } : {}),
      },
    };
    const c: FakeContainer = {
      spec: { ...spec },
      inspect,
      starts: 0,
      stops: [],
      logLines: (spec.logs ?? []).map((l) => ({ stream: l.stream, text: l.text, ...logTime(l.time) })),
      followers: new Set(),
    };
    containers.push(c);
    emit('create', c);
    const initial = spec.state ?? 'exited';
    if (initial === 'running' || initial === 'paused') {
      run(c);
      if (initial === 'paused') Object.assign(inspect.State, { Status: 'paused', Paused: true });
    } else if (initial === 'exited') {
      halt(c, 0);
    } else if (initial === 'dead') {
      Object.assign(inspect.State, { Status: 'dead', Dead: true });
    }
    return inspect;
  };
  for (const spec of opts.containers ?? []) addContainer(spec);

  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    if (body === undefined) {
      res.writeHead(status).end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  };
  const noSuch = (res: ServerResponse, ref: string) => send(res, 404, { message: `No such container: ${ref}` });

  const summary = (c: FakeContainer) => {
    const s = c.inspect.State;
    const health = s.Health && s.Running ? ` (${s.Health.Status === 'starting' ? 'health: starting' : s.Health.Status})` : '';
    return {
      Id: c.inspect.Id,
      Names: [c.inspect.Name],
      Image: c.inspect.Config.Image,
      Labels: c.inspect.Config.Labels,
      State: s.Status,
      Status: s.Running ? `Up${health}` : s.Status === 'exited' ? `Exited (${s.ExitCode})` : s.Status,
    };
  };

  const list = (query: Record<string, string>) => {
    const all = query.all === '1' || query.all === 'true';
    let filters: Record<string, string[]> = {};
    if (query.filters) filters = JSON.parse(query.filters) as Record<string, string[]>;
    return containers
      .filter((c) => all || c.inspect.State.Running)
      .filter((c) => (filters.label ?? []).every((f) => labelMatches(c.inspect.Config.Labels, f)))
      // The engine's name filter is a regular expression on the name (a substring matches).
      .filter((c) => (filters.name ?? []).every((n) => new RegExp(n).test(c.inspect.Name)))
      .filter((c) => (filters.id ?? []).every((id) => c.inspect.Id.startsWith(id)))
      .map(summary);
  };

  const frameOf = (l: StoredLogLine, tty: boolean, timestamps: boolean): Buffer => {
    const payload = Buffer.from(`${timestamps ? `${l.timestamp} ` : ''}${l.text}\n`);
    if (tty) return payload;
    const header = Buffer.alloc(8);
    header.writeUInt8(l.stream === 'stdout' ? 1 : 2, 0);
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };

  const flag = (value: string | undefined) => value === '1' || value === 'true';

  const logs = (c: FakeContainer, query: Record<string, string>, res: ServerResponse): void => {
    const stdout = flag(query.stdout);
    const stderr = flag(query.stderr);
    if (!stdout && !stderr) {
      send(res, 400, { message: 'Bad parameters: you must choose at least one stream' });
      return;
    }
    const timestamps = flag(query.timestamps);
    let lines = c.logLines.filter((l) => (l.stream === 'stdout' ? stdout : stderr));
    if (query.since && query.since !== '0') {
      const [s, ns] = parseSince(query.since);
      lines = lines.filter((l) => l.at[0] > s || (l.at[0] === s && l.at[1] >= ns));
    }
    if (query.tail && query.tail !== 'all') lines = Number(query.tail) > 0 ? lines.slice(-Number(query.tail)) : [];
    const tty = c.inspect.Config.Tty;
    res.writeHead(200, {
      'Content-Type': tty ? 'application/vnd.docker.raw-stream' : 'application/vnd.docker.multiplexed-stream',
    });
    res.flushHeaders();
    // One write per frame, as the engine streams them (a client must not assume frame boundaries).
    for (const l of lines) res.write(frameOf(l, tty, timestamps));
    if (!flag(query.follow) || !c.inspect.State.Running) {
      res.end();
      return;
    }
    const follower: LogFollower = { res, stdout, stderr, timestamps };
    c.followers.add(follower);
    res.on('close', () => c.followers.delete(follower));
  };

  const appendLog = (c: FakeContainer, line: string | { stream: 'stdout' | 'stderr'; text: string }): string => {
    const l: StoredLogLine = { ...(typeof line === 'string' ? { stream: 'stdout' as const, text: line } : line), ...logTime() };
    c.logLines.push(l);
    for (const f of c.followers) if (l.stream === 'stdout' ? f.stdout : f.stderr) f.res.write(frameOf(l, c.inspect.Config.Tty, f.timestamps));
    return l.timestamp;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://docker');
    const path = url.pathname.replace(/^\/v\d+\.\d+(?=\/)/, '');
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    const recorded: RecordedDockerRequest = { method, path, query };
    requests.push(recorded);
    res.on('finish', () => (recorded.status = res.statusCode));

    if (method === 'GET' && path === '/_ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Api-Version': '1.47' }).end('OK');
      return;
    }
    if (method === 'GET' && path === '/containers/json') {
      send(res, 200, list(query));
      return;
    }
    if (method === 'GET' && path === '/events') {
      let filters: Record<string, string[]> = {};
      if (query.filters) filters = JSON.parse(query.filters) as Record<string, string[]>;
      const client: EventClient = { res, types: filters.type, events: filters.event, labels: filters.label };
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      eventClients.add(client);
      res.on('close', () => eventClients.delete(client));
      return;
    }
    const m = /^\/containers\/([^/]+)\/(json|start|stop|unpause|logs)$/.exec(path);
    if (!m) {
      send(res, 404, { message: 'page not found' });
      return;
    }
    const ref = decodeURIComponent(m[1]);
    const c = find(ref);
    const action = `${method} ${m[2]}`;
    if (action === 'POST start' && c) c.starts += 1;
    if (action === 'POST stop' && c) c.stops.push(query.t === undefined ? {} : { t: Number(query.t) });
    if (!c) {
      noSuch(res, ref);
      return;
    }
    const s = c.inspect.State;
    switch (action) {
      case 'GET json':
        send(res, 200, c.inspect);
        return;
      case 'GET logs':
        logs(c, query, res);
        return;
      case 'POST start':
        if (s.Paused) {
          send(res, 409, { message: 'cannot start a paused container, try unpause instead' });
        } else if (s.Running) {
          send(res, 304);
        } else if (c.spec.failStart) {
          const { status, message } = c.spec.failStart;
          c.spec.failStart = undefined;
          Object.assign(s, { Status: 'exited', ExitCode: 128, Error: message });
          send(res, status, { message });
        } else {
          run(c);
          send(res, 204);
        }
        return;
      case 'POST stop': {
        if (!s.Running) {
          send(res, 304);
          return;
        }
        const graceMs = (query.t === undefined ? 10 : Number(query.t)) * 1000;
        const exitMs = c.spec.stopsAfterMs ?? 0;
        const done = () => {
          halt(c, exitMs <= graceMs ? 0 : 137);
          emit('stop', c);
          send(res, 204);
        };
        if (Math.min(exitMs, graceMs) <= 0) done();
        else setTimeout(done, Math.min(exitMs, graceMs));
        return;
      }
      case 'POST unpause':
        if (!s.Paused) send(res, 409, { message: `Container ${c.inspect.Id} is not paused` });
        else {
          Object.assign(s, { Status: 'running', Paused: false });
          send(res, 204);
        }
        return;
      default:
        send(res, 405, { message: `${method} not allowed on ${path}` });
    }
  };

  const server = opts.tls
    ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key, ca: opts.tls.ca, requestCert: true, rejectUnauthorized: true }, handle)
    : createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (opts.tls) server.listen(0, '127.0.0.1', () => resolve());
    else server.listen(socketPath, () => resolve());
  });
  const dockerHost = opts.tls ? `tcp://127.0.0.1:${(server.address() as AddressInfo).port}` : `unix://${socketPath}`;

  return {
    socketPath,
    dockerHost,
    requests,
    container: (ref) => structuredClone(must(ref).inspect),
    startCalls: (ref) => must(ref).starts,
    stopCalls: (ref) => [...must(ref).stops],
    addContainer,
    setHealth: (ref, status) => setHealth(must(ref), status, status === 'unhealthy' ? 'health check failed' : 'ok', status === 'unhealthy' ? 1 : 0),
    exit: (ref, exitCode) => halt(must(ref), exitCode),
    startFromOutside: (ref) => {
      const c = must(ref);
      if (!c.inspect.State.Running) run(c);
    },
    removeContainer: (ref) => {
      const c = must(ref);
      if (c.inspect.State.Running) halt(c, 137);
      containers.splice(containers.indexOf(c), 1);
      emit('destroy', c);
    },
    appendLog: (ref, line) => appendLog(must(ref), line),
    logFollowers: (ref) => must(ref).followers.size,
    eventStreams: () => eventClients.size,
    dropEventStreams: () => {
      for (const client of eventClients) client.res.end();
      eventClients.clear();
    },
    close: async () => {
      for (const c of containers) {
        clearTimeout(c.timer);
        for (const f of c.followers) f.res.end();
      }
      for (const client of eventClients) client.res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A log line's time: `time` as given (to the millisecond), or now to the nanosecond (./log-clock). */
function logTime(time?: Date): { timestamp: string; at: [number, number] } {
  const ns = time ? BigInt(time.getTime()) * 1_000_000n : logClockNs();
  return { timestamp: rfc3339Nano(ns), at: [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)] };
}

/** The engine's `since`: `seconds[.fraction]` → [seconds, nanoseconds]. */
function parseSince(value: string): [number, number] {
  const [sec, frac = ''] = value.split('.');
  return [Number(sec), Number(frac.padEnd(9, '0').slice(0, 9))];
}

/** A `label` filter of the engine: `key` (present) or `key=value`. */
function labelMatches(labels: Record<string, string>, filter: string): boolean {
  const [key, ...rest] = filter.split('=');
  const value = labels[key];
  return rest.length ? value === rest.join('=') : value !== undefined;
}

/**
 * TLS material as `docker --tlsverify` uses it, made with the openssl command (a throwaway CA, a
 * daemon certificate for 127.0.0.1/localhost, a client certificate): `certPath` holds the client's
 * `ca.pem`, `cert.pem`, `key.pem` (the value for DOCKER_CERT_PATH); `daemon` goes to
 * startFakeDockerEngine's `tls`. `otherCertPath` holds a client signed by another CA (refused).
 */
export function createDockerTlsMaterial(dir: string): { certPath: string; otherCertPath: string; daemon: FakeDockerTls } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) => ssl('req', '-x509', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`, '-days', '1', '-subj', `/CN=${name}`);
  const issue = (name: string, caName: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl('req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.pem`, '-CAkey', `${caName}-key.pem`, '-CAcreateserial', '-out', `${name}-cert.pem`, '-days', '1', '-extfile', `${name}.ext`);
  };
  ca('test-ca');
  ca('other-ca');
  issue('daemon', 'test-ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  issue('stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const client = (sub: string, name: string) => {
    const path = join(dir, sub);
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'ca.pem'), read('test-ca.pem'));
    writeFileSync(join(path, 'cert.pem'), read(`${name}-cert.pem`));
    writeFileSync(join(path, 'key.pem'), read(`${name}-key.pem`));
    return path;
  };
  return {
    certPath: client('client', 'client'),
    otherCertPath: client('stranger', 'stranger'),
    daemon: { cert: read('daemon-cert.pem'), key: read('daemon-key.pem'), ca: read('test-ca.pem') },
  };
}
