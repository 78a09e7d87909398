import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `uploads`: the images a project uploaded (POST /uploads/image), one row per project and key
 * (`<sha256>.<ext>` of the stored bytes: the same image twice is one row). The bytes live in the
 * image store (DATA_DIR or the S3 bucket), not here.
 */
export class Uploads1795862000000 implements MigrationInterface {
  name = 'Uploads1795862000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.uploads (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        key text NOT NULL CHECK (key ~ '^[0-9a-f]{64}\\.(png|jpg|gif|webp)$'),
        content_type text NOT NULL,
        size integer NOT NULL CHECK (size > 0),
        width integer NOT NULL CHECK (width > 0),
        height integer NOT NULL CHECK (height > 0),
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        -- milliseconds: the cursor of GET /uploads/images carries them exactly
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        UNIQUE (project_id, key)
      )`);
    await q.query(`CREATE INDEX uploads_project_created_idx ON ${s}.uploads (project_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.uploads`);
  }
}
