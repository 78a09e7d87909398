import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Docker from 'dockerode';
import {
  ContainersError,
  LineSplitter,
  logTail,
  splitLines,
  toLine,
  type ContainerProvider,
  type FollowLogsOptions,
  type InstanceLogs,
  type LogEntry,
  type LogFollower,
  type LogLine,
  type LogsOptions,
  type StopOptions,
  type WorkloadHealth,
  type WorkloadStatus,
} from '../provider';
import { attemptsNote, isTransientFailure, retryPolicy, withRetries, type RetryOptions } from '../retry';
import { parseDockerHost, type DockerEndpoint } from './docker-host';
import { describeContainer, lastHealthOutput, parseDockerTarget, summarizeContainers, type InspectedContainer } from './docker-state';

export interface DockerProviderOptions extends RetryOptions {
  /** `DOCKER_HOST` in Docker's URL format; default `unix:///var/run/docker.sock`. */
  dockerHost?: string;
  /** How long one Engine API call may take, in ms; a stop may take its grace period longer. Default 30 000. */
  timeoutMs?: number;
  /**
   * TLS to a tcp daemon, as the Docker CLI's DOCKER_TLS_VERIFY / DOCKER_CERT_PATH: `certPath` holds
   * `ca.pem` (the daemon's certificate is verified against it), `cert.pem` and `key.pem` (this
   * client's). Read at creation. Ignored for a unix socket.
   */
  tls?: { certPath: string };
}

/** A container event of the engine (`GET /events`) as the provider reports it. */
export interface ContainerEvent {
  /** create, start, die, stop, destroy (the engine's Action). */
  action: string;
  id: string;
  /** Without Docker's leading `/`. */
  name: string;
  labels: Record<string, string>;
  /** `die`: the exit code. */
  exitCode?: number;
  /** ms since the epoch */
  time: number;
}

/** A container as the engine lists it (discovery by label). */
export interface ListedContainer {
  id: string;
  name: string;
  image: string;
  labels: Record<string, string>;
  /** the engine's own state: created, running, paused, restarting, removing, exited, dead */
  engineState: string;
}

export interface WatchOptions {
  /** The engine's `event` filter; default create, start, die, destroy. */
  actions?: string[];
  /** `key` or `key=value` label filters, all required. */
  labels?: string[];
  /** The stream broke (it is reopened after `retryMs`). */
  onError?: (err: Error) => void;
  /** The stream is open (again): a caller may re-read the state it missed. */
  onOpen?: () => void;
  /** Pause before reopening a broken stream; default 1000 ms. */
  retryMs?: number;
}

/**
 * Docker Engine API (dockerode). A target is a container name or `label=key=value` (every
 * container carrying the label, as one workload).
 *
 *   const docker = new DockerProvider({ dockerHost: env.DOCKER_HOST });
 *   await docker.start('whisper');
 *   (await docker.status('whisper')).state;     // 'starting' until its HEALTHCHECK passes, then 'running'
 *   await docker.stop('label=com.docker.compose.project=whisper', { timeoutSeconds: 10 });
 */
export class DockerProvider implements ContainerProvider {
  readonly name = 'docker' as const;
  readonly endpoint: DockerEndpoint;
  private readonly docker: Docker;
  private readonly timeoutMs: number;
  private readonly retry: Required<RetryOptions>;

  constructor(opts: DockerProviderOptions = {}) {
    this.endpoint = parseDockerHost(opts.dockerHost, { tls: Boolean(opts.tls) });
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retry = retryPolicy(opts);
    if (this.endpoint.kind === 'unix') this.docker = new Docker({ socketPath: this.endpoint.socketPath });
    else if (opts.tls) {
      const { ca, cert, key } = readTlsFiles(opts.tls.certPath);
      this.tls = true;
      this.docker = new Docker({ host: this.endpoint.host, port: this.endpoint.port, protocol: 'https', ca, cert, key });
    } else this.docker = new Docker({ host: this.endpoint.host, port: this.endpoint.port, protocol: 'http' });
  }

  /** Whether the engine is reached over TLS (a tcp DOCKER_HOST with DOCKER_TLS_VERIFY). */
  readonly tls: boolean = false;

  /** Every container (running or not) carrying the label filters (`key` or `key=value`), by name. */
  async list(labels: string[]): Promise<ListedContainer[]> {
    const listed = await this.call('', 'list', (abortSignal) => this.docker.listContainers({ all: true, filters: JSON.stringify({ label: labels }), abortSignal }));
    return listed
      .map((c) => ({ id: c.Id, name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''), image: c.Image, labels: c.Labels ?? {}, engineState: c.State }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Follows the engine's container events (`GET /events`) until the returned function is called;
   * a broken stream is reopened after `retryMs` (`onOpen` says when, so the caller can re-read what
   * it may have missed). `onEvent` errors are the caller's: they are reported to `onError`, the stream goes on.
   */
  watch(onEvent: (event: ContainerEvent) => void, opts: WatchOptions = {}): () => void {
    let stopped = false;
    let current: { destroy(): void } | undefined;
    let retry: NodeJS.Timeout | undefined;
    const filters = JSON.stringify({ type: ['container'], event: opts.actions ?? ['create', 'start', 'die', 'destroy'], ...(opts.labels ? { label: opts.labels } : {}) });
    const again = (err: Error) => {
      current = undefined;
      if (stopped) return;
      opts.onError?.(err);
      retry = setTimeout(open, opts.retryMs ?? 1_000);
      retry.unref();
    };
    const open = () => {
      if (stopped) return;
      this.docker.getEvents({ filters }).then(
        (stream) => {
          const readable = stream as unknown as Readable;
          if (stopped) return readable.destroy();
          current = readable;
          opts.onOpen?.();
          let buffered = '';
          readable.on('data', (chunk: Buffer) => {
            buffered += chunk.toString('utf8');
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (!line) continue;
              try {
                const event = toEvent(JSON.parse(line));
                if (event) onEvent(event);
              } catch (err) {
                opts.onError?.(err as Error);
              }
            }
          });
          readable.once('error', (err: Error) => again(err));
          readable.once('end', () => again(new Error('the Docker events stream ended')));
        },
        (err: Error) => again(err),
      );
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      current?.destroy();
    };
  }

  async status(target: string): Promise<WorkloadStatus> {
    const inspected = await this.inspectAll(target);
    const containers = inspected.map(describeContainer);
    const { state, health, replicas } = summarizeContainers(containers);
    const message = state === 'unhealthy' ? inspected.map(lastHealthOutput).find(Boolean) : undefined;
    return {
      provider: 'docker',
      target,
      state,
      health: message ? { ...health, message } : health,
      replicas,
      containers,
      ...(message ? { message } : {}),
    };
  }

  async health(target: string): Promise<WorkloadHealth> {
    return (await this.status(target)).health;
  }

  async start(target: string): Promise<void> {
    for (const c of await this.inspectAll(target)) {
      const container = this.docker.getContainer(c.Id);
      if (c.State.Status === 'paused') {
        await this.call(target, 'unpause', (abortSignal) => container.unpause({ abortSignal }));
      } else if (c.State.Status !== 'running' && c.State.Status !== 'restarting') {
        // 304: started meanwhile by someone else, which is what we wanted.
        await this.call(target, 'start', (abortSignal) => container.start({ abortSignal }), { ok: [304] });
      }
    }
  }

  async stop(target: string, opts: StopOptions = {}): Promise<void> {
    const t = opts.timeoutSeconds;
    if (t !== undefined && (!Number.isInteger(t) || t < 0)) {
      throw new RangeError(`stop timeoutSeconds must be a non-negative integer (got ${t})`);
    }
    for (const c of await this.inspectAll(target)) {
      if (c.State.Status === 'exited' || c.State.Status === 'created' || c.State.Status === 'dead') continue;
      const container = this.docker.getContainer(c.Id);
      // The engine answers once the container has stopped: after its grace period at the latest.
      const graceMs = (t ?? c.Config?.StopTimeout ?? 10) * 1000;
      // 304: already stopped.
      await this.call(target, 'stop', (abortSignal) => container.stop(t === undefined ? { abortSignal } : { t, abortSignal }), {
        ok: [304],
        timeoutMs: this.timeoutMs + graceMs,
      });
    }
  }

  async logs(target: string, opts?: LogsOptions): Promise<InstanceLogs[]> {
    const tail = logTail(opts);
    const timestamps = opts?.timestamps ?? false;
    const result: InstanceLogs[] = [];
    for (const c of await this.inspectAll(target)) {
      const container = this.docker.getContainer(c.Id);
      const body = await this.call(target, 'logs', (abortSignal) =>
        container.logs({ stdout: true, stderr: true, follow: false, tail, timestamps, ...sinceOf(opts?.since), abortSignal }),
      );
      const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const lines = c.Config?.Tty ? splitLines(raw.toString('utf8'), 'stdout', timestamps) : await this.demux(raw, timestamps);
      result.push({ instance: c.Name.replace(/^\//, ''), lines });
    }
    return result;
  }

  /**
   * `GET /containers/{id}/logs?follow=1` of every matched container that runs now (the engine ends
   * the stream when the container stops), demultiplexed line by line as frames arrive.
   */
  async followLogs(target: string, onEntry: (entry: LogEntry) => void, opts: FollowLogsOptions = {}): Promise<LogFollower> {
    if (opts.tail !== undefined) logTail({ tail: opts.tail });
    const timestamps = opts.timestamps ?? true;
    const running = (await this.inspectAll(target)).filter((c) => c.State.Status === 'running');
    const streams: Readable[] = [];
    const ends: Array<Promise<void>> = [];
    const controller = new AbortController();
    try {
      for (const c of running) {
        const instance = c.Name.replace(/^\//, '');
        const container = this.docker.getContainer(c.Id);
        // The deadline covers the answer's headers only: the stream itself runs until the container stops.
        const connect = new AbortController();
        const timer = setTimeout(() => connect.abort(), this.timeoutMs);
        const abort = () => connect.abort();
        controller.signal.addEventListener('abort', abort);
        let stream: Readable;
        try {
          stream = (await this.call(target, 'logs', () =>
            container.logs({ stdout: true, stderr: true, follow: true, timestamps, ...(opts.tail !== undefined ? { tail: opts.tail } : {}), ...sinceOf(opts.since), abortSignal: connect.signal }),
          )) as unknown as Readable;
        } finally {
          clearTimeout(timer);
        }
        streams.push(stream);
        const splitter = (kind: LogLine['stream']) => new LineSplitter((text) => onEntry({ instance, line: toLine(text, kind, timestamps) }));
        const out = splitter('stdout');
        const err = splitter('stderr');
        ends.push(
          new Promise<void>((resolve) => {
            const done = () => {
              out.end();
              err.end();
              resolve();
            };
            stream.once('end', done);
            stream.once('close', done);
            stream.once('error', done);
          }),
        );
        if (c.Config?.Tty) stream.on('data', (chunk: Buffer) => out.write(chunk));
        else this.docker.modem.demuxStream(stream, out as never, err as never);
      }
    } catch (err) {
      controller.abort();
      for (const s of streams) s.destroy();
      throw err;
    }
    return {
      instances: running.map((c) => c.Name.replace(/^\//, '')),
      ended: Promise.all(ends).then(() => undefined),
      close: () => {
        controller.abort();
        for (const s of streams) s.destroy();
      },
    };
  }

  async ping(): Promise<void> {
    // dockerode's ping takes options (abortSignal) at runtime; its type declarations omit them.
    const ping = this.docker.ping.bind(this.docker) as unknown as (opts: { abortSignal: AbortSignal }) => Promise<unknown>;
    await this.call('', 'ping', (abortSignal) => ping({ abortSignal }));
  }

  /**
   * Splits Docker's multiplexed log stream (8-byte frame headers: stream type, size) with the
   * modem's own demuxer, keeping the order of stdout and stderr frames.
   */
  private async demux(raw: Buffer, timestamps: boolean): Promise<LogLine[]> {
    const frames: Array<{ stream: LogLine['stream']; chunk: Buffer }> = [];
    const sink = (stream: LogLine['stream']) => ({ write: (chunk: Buffer) => frames.push({ stream, chunk }) });
    const source = Readable.from([raw]);
    const ended = new Promise<void>((resolve, reject) => source.once('end', resolve).once('error', reject));
    this.docker.modem.demuxStream(source, sink('stdout') as never, sink('stderr') as never);
    await ended;
    // A frame may hold several lines or part of one: join consecutive frames of a stream, then split.
    const lines: LogLine[] = [];
    let pending: { stream: LogLine['stream']; text: string } | undefined;
    for (const { stream, chunk } of frames) {
      if (pending && pending.stream !== stream) {
        lines.push(...splitLines(pending.text, pending.stream, timestamps));
        pending = undefined;
      }
      pending = { stream, text: (pending?.text ?? '') + chunk.toString('utf8') };
    }
    if (pending) lines.push(...splitLines(pending.text, pending.stream, timestamps));
    return lines;
  }

  /** The containers a target names: one by name (inspect answers 404 when missing), or all with a label. */
  private async inspectAll(target: string): Promise<InspectedContainer[]> {
    const parsed = parseDockerTarget(target);
    if (parsed.kind === 'name') {
      return [await this.call(target, 'inspect', (abortSignal) => this.docker.getContainer(parsed.name).inspect({ abortSignal }))];
    }
    const listed = await this.call(target, 'list', (abortSignal) =>
      this.docker.listContainers({ all: true, filters: JSON.stringify({ label: [parsed.label] }), abortSignal }),
    );
    if (listed.length === 0) {
      throw new ContainersError('NOT_FOUND', `No Docker container has the label ${parsed.label} (target '${target}')`);
    }
    const inspected = await Promise.all(
      listed.map((c) => this.call(target, 'inspect', (abortSignal) => this.docker.getContainer(c.Id).inspect({ abortSignal }))),
    );
    return inspected.sort((a, b) => a.Name.localeCompare(b.Name));
  }

  /**
   * Runs one Engine API call with its own deadline per attempt, retried with backoff on a 429/502/503/504
   * answer or a refused/reset connection (`retries`, never after a timeout), mapping failures to
   * ContainersError (404 → NOT_FOUND; statuses in `ok` are success, e.g. 304 for a start of a
   * running container).
   */
  private async call<T>(
    target: string,
    what: string,
    fn: (abortSignal: AbortSignal) => Promise<T>,
    opts: { ok?: number[]; timeoutMs?: number } = {},
  ): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const statusOf = (err: unknown) => (err as { statusCode?: number }).statusCode;
    try {
      return await withRetries(
        this.retry,
        () => fn(AbortSignal.timeout(timeoutMs)),
        (err) => !opts.ok?.includes(statusOf(err) as number) && isTransientFailure(err, statusOf(err)),
      );
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status !== undefined && opts.ok?.includes(status)) return undefined as T;
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      const reason = timedOut ? `no answer within ${timeoutMs} ms` : engineMessage(err);
      if (status === 404) {
        throw new ContainersError('NOT_FOUND', `No Docker container '${target}' (${reason})`, { cause: err, status });
      }
      const where = this.endpoint.kind === 'unix' ? this.endpoint.socketPath : `${this.endpoint.host}:${this.endpoint.port}`;
      throw new ContainersError(
        'PROVIDER_ERROR',
        `Docker ${what}${target ? ` of '${target}'` : ''} failed at ${where}: ${reason}${attemptsNote(err)}` +
          (status === undefined ? ' (is the Docker daemon running and DOCKER_HOST right?)' : ''),
        { cause: err, status },
      );
    }
  }
}

/** The engine's `since` (seconds since the epoch, with a fraction) for a Date; nothing for undefined. */
function sinceOf(since: Date | undefined): { since?: string } {
  if (since === undefined) return {};
  const ms = since.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('logs since must be a valid Date');
  return { since: `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}000000` };
}

/** ca.pem, cert.pem and key.pem of a DOCKER_CERT_PATH; a missing one is INVALID_CONFIG naming it. */
function readTlsFiles(certPath: string): { ca: Buffer; cert: Buffer; key: Buffer } {
  const read = (file: string) => {
    try {
      return readFileSync(join(certPath, file));
    } catch (err) {
      throw new ContainersError('INVALID_CONFIG', `DOCKER_TLS_VERIFY is set but ${join(certPath, file)} cannot be read (${(err as Error).message}); DOCKER_CERT_PATH must hold ca.pem, cert.pem and key.pem`);
    }
  };
  return { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') };
}

interface RawEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  time?: number;
  timeNano?: number;
}

/** The engine's event JSON → ContainerEvent (the attributes hold the labels, `name`, `image`, `exitCode`). */
function toEvent(raw: RawEvent): ContainerEvent | undefined {
  if (raw.Type !== undefined && raw.Type !== 'container') return undefined;
  const action = (raw.Action ?? raw.status ?? '').split(':', 1)[0];
  const id = raw.Actor?.ID ?? raw.id;
  if (!action || !id) return undefined;
  const { name = '', image: _image, exitCode, ...labels } = raw.Actor?.Attributes ?? {};
  return {
    action,
    id,
    name: name.replace(/^\//, ''),
    labels,
    ...(exitCode !== undefined ? { exitCode: Number(exitCode) } : {}),
    time: raw.timeNano ? Math.floor(raw.timeNano / 1e6) : (raw.time ?? 0) * 1000,
  };
}

function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  if (json && typeof json.message === 'string') return json.message;
  return err instanceof Error ? err.message : String(err);
}
