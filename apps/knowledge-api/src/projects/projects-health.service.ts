import { Injectable } from '@nestjs/common';
import { ProjectsRepository } from './projects.repository';

/** `GET /api/projects/health`: the spec's `{status, service}` plus whether the tables are there. */
@Injectable()
export class ProjectsHealth {
  constructor(private readonly projects: ProjectsRepository) {}

  async check(): Promise<Record<string, unknown>> {
    try {
      const t = await this.projects.tablesPresent();
      const valid = t.projects && t.tasks;
      return { status: valid ? 'healthy' : 'schema_missing', service: 'projects', schema: { projects_table: t.projects, tasks_table: t.tasks, valid } };
    } catch (err) {
      return { status: 'error', service: 'projects', error: (err as Error).message, schema: { projects_table: false, tasks_table: false, valid: false } };
    }
  }
}
