import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projects (features, docs, PRD and data as JSON), their links to knowledge sources, the versions of
 * their JSON fields and documents, and their tasks.
 */
export class ProjectsAndTasks1795852001624 implements MigrationInterface {
  name = 'ProjectsAndTasks1795852001624';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.projects (
        id uuid PRIMARY KEY,
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        github_repo text,
        prd jsonb NOT NULL DEFAULT '{}',
        features jsonb NOT NULL DEFAULT '[]',
        docs jsonb NOT NULL DEFAULT '[]',
        data jsonb NOT NULL DEFAULT '{}',
        pinned boolean NOT NULL DEFAULT false,
        color text NOT NULL DEFAULT 'blue',
        icon text NOT NULL DEFAULT 'Briefcase',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ${s}.project_sources (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        source_id text NOT NULL REFERENCES ${s}.sources (source_id) ON DELETE CASCADE ON UPDATE CASCADE,
        kind text NOT NULL CHECK (kind IN ('technical', 'business')),
        position integer NOT NULL,
        PRIMARY KEY (project_id, kind, source_id)
      )`);
    await q.query(`CREATE INDEX project_sources_source_idx ON ${s}.project_sources (source_id)`);
    await q.query(`
      CREATE TABLE ${s}.project_versions (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        field_name text NOT NULL CHECK (field_name IN ('docs', 'features', 'data', 'prd')),
        version_number integer NOT NULL,
        document_id text,
        content jsonb NOT NULL,
        change_summary text NOT NULL DEFAULT '',
        change_type text NOT NULL,
        created_by text NOT NULL DEFAULT 'system',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, field_name, version_number)
      )`);
    await q.query(`
      CREATE TABLE ${s}.tasks (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        parent_task_id uuid REFERENCES ${s}.tasks (id) ON DELETE SET NULL,
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'doing', 'review', 'done')),
        assignee text NOT NULL DEFAULT 'User',
        task_order integer NOT NULL DEFAULT 0,
        feature text,
        sources jsonb NOT NULL DEFAULT '[]',
        code_examples jsonb NOT NULL DEFAULT '[]',
        archived boolean NOT NULL DEFAULT false,
        archived_at timestamptz,
        archived_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tasks_project_status_order_idx ON ${s}.tasks (project_id, status, task_order) WHERE NOT archived`);
    await q.query(`CREATE INDEX tasks_parent_idx ON ${s}.tasks (parent_task_id) WHERE parent_task_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.tasks`);
    await q.query(`DROP TABLE ${s}.project_versions`);
    await q.query(`DROP TABLE ${s}.project_sources`);
    await q.query(`DROP TABLE ${s}.projects`);
  }
}
