import { Readable } from 'node:stream';
import Docker from 'dockerode';
import {
  ContainersError,
  logTail,
  splitLines,
  type ContainerProvider,
  type InstanceLogs,
  type LogLine,
  type LogsOptions,
  type StopOptions,
  type WorkloadHealth,
  type WorkloadStatus,
} from '../provider';
import { parseDockerHost, type DockerEndpoint } from './docker-host';
import { describeContainer, lastHealthOutput, parseDockerTarget, summarizeContainers, type InspectedContainer } from './docker-state';

export interface DockerProviderOptions {
  /** `DOCKER_HOST` in Docker's URL format; default `unix:///var/run/docker.sock`. */
  dockerHost?: string;
  /** How long one Engine API call may take, in ms; a stop may take its grace period longer. Default 30 000. */
  timeoutMs?: number;
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

  constructor(opts: DockerProviderOptions = {}) {
    this.endpoint = parseDockerHost(opts.dockerHost);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.docker =
      this.endpoint.kind === 'unix'
        ? new Docker({ socketPath: this.endpoint.socketPath })
        : new Docker({ host: this.endpoint.host, port: this.endpoint.port, protocol: 'http' });
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
    const result: InstanceLogs[] = [];
    for (const c of await this.inspectAll(target)) {
      const container = this.docker.getContainer(c.Id);
      const body = await this.call(target, 'logs', (abortSignal) =>
        container.logs({ stdout: true, stderr: true, follow: false, tail, abortSignal }),
      );
      const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const lines = c.Config?.Tty ? splitLines(raw.toString('utf8'), 'stdout') : await this.demux(raw);
      result.push({ instance: c.Name.replace(/^\//, ''), lines });
    }
    return result;
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
  private async demux(raw: Buffer): Promise<LogLine[]> {
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
        lines.push(...splitLines(pending.text, pending.stream));
        pending = undefined;
      }
      pending = { stream, text: (pending?.text ?? '') + chunk.toString('utf8') };
    }
    if (pending) lines.push(...splitLines(pending.text, pending.stream));
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
   * Runs one Engine API call with its own deadline, mapping failures to ContainersError
   * (404 → NOT_FOUND; statuses in `ok` are success, e.g. 304 for a start of a running container).
   */
  private async call<T>(
    target: string,
    what: string,
    fn: (abortSignal: AbortSignal) => Promise<T>,
    opts: { ok?: number[]; timeoutMs?: number } = {},
  ): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    try {
      return await fn(AbortSignal.timeout(timeoutMs));
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
        `Docker ${what}${target ? ` of '${target}'` : ''} failed at ${where}: ${reason}` +
          (status === undefined ? ' (is the Docker daemon running and DOCKER_HOST right?)' : ''),
        { cause: err, status },
      );
    }
  }
}

function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  if (json && typeof json.message === 'string') return json.message;
  return err instanceof Error ? err.message : String(err);
}
