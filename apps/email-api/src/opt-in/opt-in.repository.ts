import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { OPT_IN_OFF, type OptInSettings } from './opt-in-settings';

interface SettingsRow {
  project_id: string;
  enabled: boolean;
  template_id: string | null;
}

const toSettings = (r: SettingsRow): OptInSettings => ({ enabled: r.enabled, templateId: r.template_id });

/** The projects' double opt-in settings (`opt_in_settings`; a project without a row has it off). */
@Injectable()
export class OptInRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('opt_in_settings');
  }

  async find(projectId: string): Promise<OptInSettings> {
    const row = await this.db.one<SettingsRow>(`SELECT * FROM ${this.table} WHERE project_id = $1`, [projectId]);
    return row ? toSettings(row) : OPT_IN_OFF;
  }

  /** The settings of several projects, by project id (every id is answered). */
  async findMany(projectIds: string[]): Promise<Map<string, OptInSettings>> {
    const rows = projectIds.length ? await this.db.rows<SettingsRow>(`SELECT * FROM ${this.table} WHERE project_id = ANY($1::uuid[])`, [projectIds]) : [];
    const found = new Map(rows.map((r) => [r.project_id, toSettings(r)]));
    return new Map(projectIds.map((id) => [id, found.get(id) ?? OPT_IN_OFF]));
  }

  /** The settings of the project, locked for the open transaction (a row is created when there is none). */
  async lock(projectId: string): Promise<OptInSettings> {
    await this.db.rows(`INSERT INTO ${this.table} (project_id) VALUES ($1) ON CONFLICT (project_id) DO NOTHING`, [projectId]);
    const row = await this.db.one<SettingsRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 FOR UPDATE`, [projectId]);
    return toSettings(row!);
  }

  async save(projectId: string, settings: OptInSettings): Promise<OptInSettings> {
    const row = await this.db.one<SettingsRow>(
      `INSERT INTO ${this.table} AS s (project_id, enabled, template_id) VALUES ($1, $2, $3)
       ON CONFLICT (project_id) DO UPDATE SET enabled = $2, template_id = $3, updated_at = date_trunc('milliseconds', now())
       RETURNING s.*`,
      [projectId, settings.enabled, settings.templateId],
    );
    return toSettings(row!);
  }
}
