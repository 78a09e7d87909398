import { Column, Entity, PrimaryGeneratedColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaOf } from '../schema';

/** A small entity and its migrations, used by this lib's integration tests. */
@Entity({ name: 'notes' })
export class Note {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  meta: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

export class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`CREATE TABLE ${s}.notes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      body text NOT NULL,
      meta jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    // Counts how often this migration ran: the concurrency test expects exactly once.
    await q.query(`CREATE TABLE ${s}.migration_runs (name text NOT NULL)`);
    await q.query(`INSERT INTO ${s}.migration_runs (name) VALUES ('CreateNotes')`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.migration_runs`);
    await q.query(`DROP TABLE ${s}.notes`);
  }
}

export class CreateJobs1700000000001 implements MigrationInterface {
  name = 'CreateJobs1700000000001';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`CREATE TABLE ${s}.jobs (
      id serial PRIMARY KEY,
      run_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0,
      claimed_until timestamptz
    )`);
    await q.query(`INSERT INTO ${s}.migration_runs (name) VALUES ('CreateJobs')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.jobs`);
  }
}

export const noteMigrations = [CreateNotes1700000000000, CreateJobs1700000000001];
