/**
 * The one interface every workload provider implements (Docker Engine API, Kubernetes), so an app
 * starts, stops and watches a workload without knowing where it runs.
 *
 *   stopped ──start()──► starting ──health check passes──► running
 *      ▲                    │                                 │
 *      └──────stop()────────┴──────────── stop() ─────────────┘
 *   starting ──health check fails──► unhealthy      (dead container: failed)
 *
 * A workload is `running` only when it is up and, where it has a health check of its own, healthy.
 * `health.status === 'none'` says it has none (a container without HEALTHCHECK, pods without a
 * readiness probe): the caller must probe the workload itself before sending it traffic.
 */

export type ProviderName = 'docker' | 'kubernetes';

/**
 * - `stopped`: nothing runs (or, for a group of containers, at least one is stopped); `start()` starts it.
 * - `stopping`: scaled to zero, pods still terminating (Kubernetes); `start()` scales it up again.
 * - `starting`: started, not yet healthy/ready.
 * - `running`: up, and healthy where it has a health check.
 * - `unhealthy`: its health check fails (Docker `unhealthy`; Kubernetes progress deadline exceeded).
 * - `failed`: cannot be started as it is (Docker `dead` or `removing`; Kubernetes `ReplicaFailure`).
 */
export type WorkloadState = 'stopped' | 'stopping' | 'starting' | 'running' | 'unhealthy' | 'failed';

/** The workload's own health: `none` = it has no check of its own; `stopped` = nothing runs. */
export type HealthStatus = 'healthy' | 'starting' | 'unhealthy' | 'none' | 'stopped';

export interface ReplicaCounts {
  /** Docker: containers matched by the target. Kubernetes: `spec.replicas`. */
  desired: number;
  /** Docker: containers running. Kubernetes: `status.replicas` (pods that exist). */
  current: number;
  /** Docker: running and healthy (or without a check). Kubernetes: `status.readyReplicas`. */
  ready: number;
}

export interface WorkloadHealth {
  status: HealthStatus;
  ready: number;
  desired: number;
  /** Why it is not healthy, when the platform says (last health-check output, a condition's message). */
  message?: string;
}

/** One container (Docker) as the engine reports it. */
export interface ContainerDetails {
  id: string;
  /** Without Docker's leading `/`. */
  name: string;
  image: string;
  /** The engine's own state: created, running, paused, restarting, removing, exited, dead. */
  engineState: string;
  state: WorkloadState;
  health: HealthStatus;
  exitCode?: number;
  startedAt?: string;
  finishedAt?: string;
}

export interface WorkloadStatus {
  provider: ProviderName;
  target: string;
  state: WorkloadState;
  health: WorkloadHealth;
  replicas: ReplicaCounts;
  /** Docker: every container the target matched. Kubernetes: empty (see `replicas`). */
  containers: ContainerDetails[];
  /** Kubernetes: `deployment` or `statefulset`. */
  kind?: string;
  message?: string;
}

export interface LogLine {
  /** Kubernetes merges both streams of a pod: its lines are `stdout`. */
  stream: 'stdout' | 'stderr';
  text: string;
  /** With `timestamps`: when the line was written, RFC 3339 as the platform gives it (nanoseconds on both). */
  timestamp?: string;
}

export interface InstanceLogs {
  /** Container name (Docker) or pod name (Kubernetes). */
  instance: string;
  lines: LogLine[];
}

export interface StopOptions {
  /** Docker: seconds to wait after SIGTERM before SIGKILL (default: the container's own, 10 s).
   *  Kubernetes: ignored (the pods' `terminationGracePeriodSeconds` applies). */
  timeoutSeconds?: number;
}

export interface LogsOptions {
  /** Last lines per instance; default 100. */
  tail?: number;
  /**
   * Only lines written after this instant. Docker takes it to the nanosecond; Kubernetes to the second
   * (`sinceTime`), so lines of that second come again: a caller that resumes compares `timestamp`s.
   */
  since?: Date;
  /** Each line carries its `timestamp` (the platform's own, not the reading's). */
  timestamps?: boolean;
}

export interface FollowLogsOptions {
  /** Lines already written to send first, per instance; default all (bounded by `since`). */
  tail?: number;
  /** As in LogsOptions. */
  since?: Date;
  /** As in LogsOptions; default true. */
  timestamps?: boolean;
}

/** One line of one instance, as followLogs() delivers them. */
export interface LogEntry {
  instance: string;
  line: LogLine;
}

/** A running followLogs(): close() stops reading; `ended` resolves once every stream ended. */
export interface LogFollower {
  /** The instances followed (containers, or pods and their containers), fixed when it began. */
  readonly instances: string[];
  /** Resolves when every instance's stream ended: the workload stopped, the connection broke, or close(). */
  readonly ended: Promise<void>;
  close(): void;
}

export interface ContainerProvider {
  readonly name: ProviderName;
  /** State, health and details of the workload. Rejects with `NOT_FOUND` when the target matches nothing. */
  status(target: string): Promise<WorkloadStatus>;
  /** Starts what is stopped (Docker: every matched container; Kubernetes: scales to the remembered replicas). Idempotent. */
  start(target: string): Promise<void>;
  /** Stops it (Docker: every matched container; Kubernetes: remembers the replicas and scales to 0). Idempotent. */
  stop(target: string, opts?: StopOptions): Promise<void>;
  /** The last log lines of each instance. */
  logs(target: string, opts?: LogsOptions): Promise<InstanceLogs[]>;
  /**
   * Follows the logs of each instance running now (Docker: every matched container; Kubernetes: every
   * pod of the workload and its containers), calling `onEntry` for each line as it is written, until
   * the instance stops (its stream ends) or close(). Instances started later are not followed: call it
   * again (with `since`, the last timestamp seen) to resume. Rejects like logs() when the target is
   * unknown or the platform refuses.
   */
  followLogs(target: string, onEntry: (entry: LogEntry) => void, opts?: FollowLogsOptions): Promise<LogFollower>;
  /** The workload's own health (Docker HEALTHCHECK, Kubernetes readiness). */
  health(target: string): Promise<WorkloadHealth>;
  /** Resolves when the engine or API server answers (readiness checks). */
  ping(): Promise<void>;
}

export type ContainersErrorCode =
  /** The target names nothing the provider can find. */
  | 'NOT_FOUND'
  /** The target string is malformed for the provider. */
  | 'INVALID_TARGET'
  /** Bad provider configuration (DOCKER_HOST, kubeconfig). */
  | 'INVALID_CONFIG'
  /** The engine or API server refused or failed (see `status` and `cause`). */
  | 'PROVIDER_ERROR';

export class ContainersError extends Error {
  /** HTTP status the engine or API server answered, when it did. */
  readonly status?: number;

  constructor(
    readonly code: ContainersErrorCode,
    message: string,
    opts: { cause?: unknown; status?: number } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ContainersError';
    this.status = opts.status;
  }
}

export function isContainersError(err: unknown, code?: ContainersErrorCode): err is ContainersError {
  return err instanceof ContainersError && (code === undefined || err.code === code);
}

/** Tail size used when none is given, and the largest accepted. */
export const DEFAULT_LOG_TAIL = 100;
export const MAX_LOG_TAIL = 10_000;

export function logTail(opts?: LogsOptions): number {
  const tail = opts?.tail ?? DEFAULT_LOG_TAIL;
  if (!Number.isInteger(tail) || tail < 1 || tail > MAX_LOG_TAIL) {
    throw new RangeError(`logs tail must be an integer from 1 to ${MAX_LOG_TAIL} (got ${tail})`);
  }
  return tail;
}

/** Splits log text into lines, dropping the empty line after a final newline; `timestamps`: each starts with its RFC 3339 time and a space. */
export function splitLines(text: string, stream: LogLine['stream'], timestamps = false): LogLine[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => toLine(line, stream, timestamps));
}

const TIMESTAMPED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})) ?/;

/** One line of text as a LogLine; with `timestamps` its leading RFC 3339 time becomes `timestamp`. */
export function toLine(text: string, stream: LogLine['stream'], timestamps: boolean): LogLine {
  if (!timestamps) return { stream, text };
  const m = TIMESTAMPED.exec(text);
  return m ? { stream, text: text.slice(m[0].length), timestamp: m[1] } : { stream, text };
}

/**
 * Cuts a stream's chunks into whole lines (a chunk may hold several lines or part of one), calling
 * `onLine` for each; end() delivers a last line without newline.
 */
export class LineSplitter {
  private pending = '';

  constructor(private readonly onLine: (text: string) => void) {}

  write(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      this.onLine(line);
    }
  }

  end(): void {
    if (this.pending) this.onLine(this.pending);
    this.pending = '';
  }
}

/**
 * Compares two RFC 3339 timestamps of one platform (UTC, `Z`) to the nanosecond: negative when `a` is
 * earlier. Used to skip lines already seen when a follow resumes `since` a time.
 */
export function compareTimestamps(a: string, b: string): number {
  const norm = (t: string) => {
    const m = /^(.*?)(?:\.(\d+))?Z$/.exec(t);
    if (!m) return { s: Date.parse(t), frac: '' };
    return { s: Date.parse(`${m[1]}Z`), frac: (m[2] ?? '').padEnd(9, '0') };
  };
  const x = norm(a);
  const y = norm(b);
  if (x.s !== y.s) return x.s - y.s;
  return x.frac < y.frac ? -1 : x.frac > y.frac ? 1 : 0;
}
