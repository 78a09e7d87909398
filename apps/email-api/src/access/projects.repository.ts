import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { NewKeys, Project, ProjectWithRole } from './project';
import type { ProjectRole } from './roles';

interface ProjectRow {
  id: string;
  name: string;
  public_key: string;
  secret_key_hint: string;
  keys_rotated_at: Date;
  disabled: boolean;
  disabled_reason: string | null;
  tracking_enabled: boolean;
  created_at: Date;
  updated_at: Date;
  role?: ProjectRole;
}

const COLUMNS = 'p.id, p.name, p.public_key, p.secret_key_hint, p.keys_rotated_at, p.disabled, p.disabled_reason, p.tracking_enabled, p.created_at, p.updated_at';

function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    name: r.name,
    publicKey: r.public_key,
    secretKeyHint: r.secret_key_hint,
    keysRotatedAt: r.keys_rotated_at,
    disabled: r.disabled,
    disabledReason: r.disabled_reason,
    trackingEnabled: r.tracking_enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A public-key lookup waiting for the next grouped statement. */
interface KeyLookup {
  key: string;
  resolve(project: Project | null): void;
  reject(err: unknown): void;
}

@Injectable()
export class ProjectsRepository {
  private lookups: KeyLookup[] = [];
  private lookingUp = false;

  constructor(private readonly db: Database) {}

  /**
   * Looked up on every API request (keys are never cached). Inside a transaction, in it; else
   * grouped: the lookups that arrive while one statement runs are made together by the next, one
   * prepared statement for all their keys, so that each request is still answered from a statement
   * that started after it came (a key rotated before then is never accepted), with a round trip per
   * group instead of one per request.
   */
  async findByPublicKey(publicKey: string): Promise<Project | null> {
    if (this.db.inTransaction) {
      const [row] = await this.db.rows<ProjectRow>(`SELECT ${COLUMNS} FROM ${this.db.table('projects')} p WHERE p.public_key = $1`, [publicKey]);
      return row ? toProject(row) : null;
    }
    return new Promise<Project | null>((resolve, reject) => {
      this.lookups.push({ key: publicKey, resolve, reject });
      this.lookUp();
    });
  }

  /** Runs the waiting lookups as one statement unless one runs; the next group starts when it ends. */
  private lookUp(): void {
    if (this.lookingUp || this.lookups.length === 0) return;
    const group = this.lookups;
    this.lookups = [];
    this.lookingUp = true;
    const keys = [...new Set(group.map((l) => l.key))];
    void this.db
      .prepared<ProjectRow>('email_projects_by_pk', `SELECT ${COLUMNS} FROM ${this.db.table('projects')} p WHERE p.public_key = ANY($1::text[])`, [keys])
      .then(
        (rows) => {
          const byKey = new Map(rows.map((r) => [r.public_key, r]));
          for (const l of group) {
            const row = byKey.get(l.key);
            l.resolve(row ? toProject(row) : null);
          }
        },
        (err: unknown) => group.forEach((l) => l.reject(err)),
      )
      .finally(() => {
        this.lookingUp = false;
        this.lookUp();
      });
  }

  async findBySecretKeyHash(hash: string): Promise<Project | null> {
    const sql = `SELECT ${COLUMNS} FROM ${this.db.table('projects')} p WHERE p.secret_key_hash = $1`;
    const [row] = await this.db.prepared<ProjectRow>('email_project_by_sk', sql, [hash]);
    return row ? toProject(row) : null;
  }

  /** The project with the user's role, or null when the user is not a member (or the project does not exist). */
  async findForMember(projectId: string, userId: string): Promise<ProjectWithRole | null> {
    const row = await this.db.one<ProjectRow>(
      `SELECT ${COLUMNS}, m.role FROM ${this.db.table('projects')} p
         JOIN ${this.db.table('project_members')} m ON m.project_id = p.id AND m.user_id = $2
        WHERE p.id = $1`,
      [projectId, userId],
    );
    return row ? { ...toProject(row), role: row.role! } : null;
  }

  async listForMember(userId: string): Promise<ProjectWithRole[]> {
    const rows = await this.db.rows<ProjectRow>(
      `SELECT ${COLUMNS}, m.role FROM ${this.db.table('projects')} p
         JOIN ${this.db.table('project_members')} m ON m.project_id = p.id AND m.user_id = $1
        ORDER BY p.created_at ASC, p.id ASC`,
      [userId],
    );
    return rows.map((r) => ({ ...toProject(r), role: r.role! }));
  }

  /** Creates the project and its owner membership in one transaction. */
  async create(name: string, ownerId: string, keys: NewKeys): Promise<Project> {
    return this.db.transaction(async () => {
      const row = await this.db.one<ProjectRow>(
        `INSERT INTO ${this.db.table('projects')} AS p (name, public_key, secret_key_hash, secret_key_hint)
         VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
        [name, keys.publicKey, keys.secretKeyHash, keys.secretKeyHint],
      );
      await this.db.rows(`INSERT INTO ${this.db.table('project_members')} (project_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [row!.id, ownerId]);
      return toProject(row!);
    });
  }

  async rename(id: string, name: string): Promise<Project | null> {
    const row = await this.db.one<ProjectRow>(
      `UPDATE ${this.db.table('projects')} AS p SET name = $2, updated_at = now() WHERE p.id = $1 RETURNING ${COLUMNS}`,
      [id, name],
    );
    return row ? toProject(row) : null;
  }

  /** Replaces both keys at once: the old ones no longer match any row from this commit on. */
  async replaceKeys(id: string, keys: NewKeys): Promise<Project | null> {
    const row = await this.db.one<ProjectRow>(
      `UPDATE ${this.db.table('projects')} AS p
          SET public_key = $2, secret_key_hash = $3, secret_key_hint = $4, keys_rotated_at = now(), updated_at = now()
        WHERE p.id = $1 RETURNING ${COLUMNS}`,
      [id, keys.publicKey, keys.secretKeyHash, keys.secretKeyHint],
    );
    return row ? toProject(row) : null;
  }

  /** Open and click tracking on or off for the project's future mail. */
  async setTracking(id: string, enabled: boolean): Promise<Project | null> {
    const row = await this.db.one<ProjectRow>(
      `UPDATE ${this.db.table('projects')} p SET tracking_enabled = $2, updated_at = now() WHERE p.id = $1 RETURNING ${COLUMNS}`,
      [id, enabled],
    );
    return row ? toProject(row) : null;
  }

  async trackingEnabled(id: string): Promise<boolean> {
    const row = await this.db.one<{ tracking_enabled: boolean }>(`SELECT tracking_enabled FROM ${this.db.table('projects')} WHERE id = $1`, [id]);
    return row?.tracking_enabled ?? false;
  }

  /** Disables an enabled project with the reason; answers whether it was enabled. */
  async pause(id: string, reason: string): Promise<boolean> {
    return (await this.db.affected(`UPDATE ${this.db.table('projects')} SET disabled = true, disabled_reason = $2, updated_at = now() WHERE id = $1 AND NOT disabled`, [id, reason])) > 0;
  }

  /** Enables the project if it was disabled with a reason starting with `reasonPrefix` (never one paused for another reason). */
  async resume(id: string, reasonPrefix: string): Promise<boolean> {
    return (
      (await this.db.affected(
        `UPDATE ${this.db.table('projects')} SET disabled = false, disabled_reason = NULL, updated_at = now() WHERE id = $1 AND disabled AND starts_with(disabled_reason, $2)`,
        [id, reasonPrefix],
      )) > 0
    );
  }

  async exists(id: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.db.table('projects')} WHERE id = $1`, [id])) !== null;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.db.table('projects')} WHERE id = $1`, [id])) > 0;
  }

  /** Deletes every piece of data of the project (contacts with their events, emails, jobs, idempotency keys); keeps the project, its keys and members. */
  async wipeData(id: string): Promise<Record<string, number>> {
    return this.db.transaction(async () => {
      const counts: Record<string, number> = {};
      for (const table of ['mail_events', 'mail_event_rollups', 'mail_event_rollup_queue', 'events', 'emails', 'contacts', 'jobs', 'idempotency_keys']) {
        counts[table] = await this.db.affected(`DELETE FROM ${this.db.table(table)} WHERE project_id = $1`, [id]);
      }
      return counts;
    });
  }
}
