import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export type WorkloadStatusName = 'unknown' | 'stopped' | 'starting' | 'running' | 'stopping' | 'failed';

export interface WorkloadRow {
  name: string;
  status: WorkloadStatusName;
  statusSince: Date;
  lastActivity: Date;
  startDeadline: Date | null;
  lastError: string | null;
  starts: number;
  stops: number;
  /** proxied requests, all replicas */
  requests: number;
  /** the end of the latest Sablier API session, if one is newer than the last routed request */
  sessionUntil: Date | null;
}

interface RawWorkload {
  name: string;
  status: WorkloadStatusName;
  status_since: Date;
  last_activity: Date;
  start_deadline: Date | null;
  last_error: string | null;
  starts: number;
  stops: number;
  requests: string;
  session_touched: Date | null;
  session_until: Date | null;
}

/** A Sablier API session asked for at `at`, keeping the workload until `until`. */
export interface SessionTouch {
  at: Date;
  until: Date;
}

export interface RequestRecord {
  service: string;
  host: string;
  method: string;
  path: string;
  status: number;
  /** proxied | waiting | accepted | failed */
  outcome: string;
  durationMs: number;
  at: Date;
}

/**
 * The shared state of the managed services (one row each) and their request history. Every change of
 * status is a conditional UPDATE: of several replicas, exactly one wins a start or an idle stop.
 */
@Injectable()
export class WorkloadsRepository {
  constructor(private readonly db: Database) {}

  /** Adds a row for each service not seen before: status unknown, active since `now` (so an idle one is stopped after its timeout). */
  async ensure(names: string[], now: Date): Promise<void> {
    if (names.length === 0) return;
    await this.db.affected(
      `INSERT INTO ${this.db.table('workloads')} (name, status, status_since, last_activity)
       SELECT n, 'unknown', $2, $2 FROM unnest($1::text[]) AS n
       ON CONFLICT (name) DO NOTHING`,
      [names, now],
    );
  }

  async get(name: string): Promise<WorkloadRow | null> {
    const row = await this.db.one<RawWorkload>(`SELECT * FROM ${this.db.table('workloads')} WHERE name = $1`, [name]);
    return row ? toRow(row) : null;
  }

  async list(names: string[]): Promise<WorkloadRow[]> {
    const rows = await this.db.rows<RawWorkload>(`SELECT * FROM ${this.db.table('workloads')} WHERE name = ANY($1::text[])`, [names]);
    return rows.map(toRow);
  }

  /**
   * Moves last-activity times forward (never back), adds the proxied requests counted since the last
   * call, and records the sessions asked for through the Sablier API (their end moves forward only).
   */
  async touch(activity: Map<string, Date>, proxied: Map<string, number> = new Map(), sessions: Map<string, SessionTouch> = new Map()): Promise<void> {
    if (activity.size > 0) {
      const names = [...activity.keys()];
      await this.db.affected(
        `UPDATE ${this.db.table('workloads')} w SET last_activity = GREATEST(w.last_activity, t.at), requests = w.requests + t.n
           FROM unnest($1::text[], $2::timestamptz[], $3::bigint[]) AS t(name, at, n) WHERE w.name = t.name`,
        [names, [...activity.values()], names.map((n) => proxied.get(n) ?? 0)],
      );
    }
    if (sessions.size > 0) {
      const names = [...sessions.keys()];
      await this.db.affected(
        `UPDATE ${this.db.table('workloads')} w
            SET session_touched = GREATEST(w.session_touched, t.at), session_until = GREATEST(w.session_until, t.until)
           FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS t(name, at, until) WHERE w.name = t.name`,
        [names, names.map((n) => sessions.get(n)!.at), names.map((n) => sessions.get(n)!.until)],
      );
    }
  }

  /**
   * Claims the start of a service: true for exactly one caller while no start is in progress (or the
   * one in progress is past its deadline). A failed start must be acknowledged first (ackFailure).
   */
  async claimStart(name: string, now: Date, deadline: Date, sessionUntil?: Date): Promise<boolean> {
    // A start for a routed request counts as activity; one for a Sablier session is kept by its session.
    const keep = sessionUntil
      ? `session_touched = GREATEST(session_touched, $2), session_until = GREATEST(session_until, $4)`
      : `last_activity = GREATEST(last_activity, $2)`;
    const n = await this.db.affected(
      `UPDATE ${this.db.table('workloads')}
          SET status = 'starting', status_since = $2, start_deadline = $3, last_error = NULL, starts = starts + 1, ${keep}
        WHERE name = $1 AND status <> 'failed' AND (status <> 'starting' OR start_deadline < $2)`,
      sessionUntil ? [name, now, deadline, sessionUntil] : [name, now, deadline],
    );
    return n === 1;
  }

  /** A start this replica gave up without a verdict (shutdown): anyone may look again. */
  async releaseStart(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'unknown', status_since = $2, start_deadline = NULL WHERE name = $1 AND status = 'starting'`,
      [name, now],
    );
  }

  /** The workload answers healthy: running (from any state). */
  async markRunning(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'running', status_since = $2, start_deadline = NULL, last_error = NULL
        WHERE name = $1 AND status <> 'running'`,
      [name, now],
    );
  }

  /** The start in progress failed (engine error, unhealthy, timeout). */
  async markFailed(name: string, now: Date, error: string): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'failed', status_since = $2, start_deadline = NULL, last_error = $3
        WHERE name = $1 AND status = 'starting'`,
      [name, now, error],
    );
  }

  /** Hands a failed start's error to one caller (who answers it) and lets the next request start again. */
  async ackFailure(name: string, now: Date): Promise<string | null> {
    const row = await this.db.one<{ last_error: string | null }>(
      `UPDATE ${this.db.table('workloads')} SET status = 'stopped', status_since = $2
        WHERE name = $1 AND status = 'failed' RETURNING last_error`,
      [name, now],
    );
    return row ? (row.last_error ?? 'the start failed') : null;
  }

  /** Stopped or removed from outside (an engine event): stopped now, its Sablier session ended. A start in progress judges for itself. */
  async stoppedOutside(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'stopped', status_since = $2, session_touched = NULL, session_until = NULL
        WHERE name = $1 AND status IN ('unknown', 'running')`,
      [name, now],
    );
  }

  /** Started from outside (an engine event): active from now, so it is stopped after its idle timeout. */
  async adopt(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'unknown', status_since = $2, last_activity = GREATEST(last_activity, $2)
        WHERE name = $1 AND status IN ('stopped', 'unknown')`,
      [name, now],
    );
  }

  /** The workload was found stopped (from outside, or never started). */
  async markStopped(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'stopped', status_since = $2
        WHERE name = $1 AND status IN ('unknown', 'running')`,
      [name, now],
    );
  }

  /**
   * Claims the services idle past their timeout (`idle` seconds) for stopping: each is returned to
   * one caller only (status → stopping). Unknown ones (found at start, never used) and failed ones
   * (a container that never became healthy) are stopped too. The latest use decides: a Sablier
   * session asked for after the last routed request keeps it until the session's end, else the idle
   * timeout since that request applies. A stop claimed more than `lease` seconds ago and never
   * finished (its replica was killed mid-stop) is claimed again, with `takenOver` set.
   */
  async claimIdle(now: Date, services: Array<{ name: string; idle: number; lease: number }>): Promise<Array<{ name: string; takenOver: boolean }>> {
    if (services.length === 0) return [];
    // `o` is the row as it was before this UPDATE (a self-join): it tells a take-over from a new claim.
    const rows = await this.db.rows<{ name: string; old_status: string }>(
      `UPDATE ${this.db.table('workloads')} w SET status = 'stopping', status_since = $4
         FROM unnest($1::text[], $2::integer[], $3::double precision[]) AS c(name, idle, lease),
              ${this.db.table('workloads')} o
        WHERE w.name = c.name AND o.name = w.name
          AND ((w.status IN ('unknown', 'running', 'failed')
                AND CASE WHEN w.session_touched IS NOT NULL AND w.session_touched >= w.last_activity
                         THEN w.session_until < $4::timestamptz
                         ELSE w.last_activity < $4::timestamptz - c.idle * interval '1 second' END)
               OR (w.status = 'stopping' AND w.status_since < $4::timestamptz - c.lease * interval '1 second'))
        RETURNING w.name, o.status AS old_status`,
      [services.map((s) => s.name), services.map((s) => s.idle), services.map((s) => s.lease), now],
    );
    return rows.map((r) => ({ name: r.name, takenOver: r.old_status === 'stopping' }));
  }

  /** The claimed stop is done. */
  async stopped(name: string, now: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'stopped', status_since = $2, stops = stops + 1
        WHERE name = $1 AND status = 'stopping'`,
      [name, now],
    );
  }

  /** The claimed stop failed: counted as active now, so that it is tried again after another idle period. */
  async stopFailed(name: string, now: Date, error: string): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('workloads')} SET status = 'unknown', status_since = $2, last_activity = $2, last_error = $3
        WHERE name = $1 AND status = 'stopping'`,
      [name, now, error],
    );
  }

  async recordRequests(records: RequestRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.affected(
      `INSERT INTO ${this.db.table('request_history')} (service, host, method, path, status, outcome, duration_ms, at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::real[], $8::timestamptz[])`,
      [
        records.map((r) => r.service),
        records.map((r) => r.host),
        records.map((r) => r.method),
        records.map((r) => r.path),
        records.map((r) => r.status),
        records.map((r) => r.outcome),
        records.map((r) => r.durationMs),
        records.map((r) => r.at),
      ],
    );
  }

  async history(service: string, limit: number): Promise<RequestRecord[]> {
    const rows = await this.db.rows<{ service: string; host: string; method: string; path: string; status: number; outcome: string; duration_ms: number; at: Date }>(
      `SELECT service, host, method, path, status, outcome, duration_ms, at FROM ${this.db.table('request_history')}
        WHERE service = $1 ORDER BY at DESC, id DESC LIMIT $2`,
      [service, limit],
    );
    return rows.map((r) => ({ service: r.service, host: r.host, method: r.method, path: r.path, status: r.status, outcome: r.outcome, durationMs: r.duration_ms, at: r.at }));
  }

  async pruneHistory(before: Date): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.db.table('request_history')} WHERE at < $1`, [before]);
  }
}

function toRow(r: RawWorkload): WorkloadRow {
  return {
    name: r.name,
    status: r.status,
    statusSince: r.status_since,
    lastActivity: r.last_activity,
    startDeadline: r.start_deadline,
    lastError: r.last_error,
    starts: r.starts,
    stops: r.stops,
    requests: Number(r.requests),
    sessionUntil: r.session_touched && r.session_until && r.session_touched >= r.last_activity ? r.session_until : null,
  };
}
