import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Source ids that cannot merge: a crawl's was its host (two crawls of one domain merged into one
 * source) and an upload's its file name (which could equal a crawled host: `.md` is a top-level
 * domain). Now a crawl's id is `<host>-<first 8 hex digits of sha256(start URL)>` with `:` as `_`
 * (crawl/crawl.service.ts sourceIdOf) and an upload's `file:<name>`; this renames the stored ones
 * the same way (their chunks, code examples and progress rows follow: the foreign keys now cascade
 * updates).
 */
export class StableSourceIds1795511500000 implements MigrationInterface {
  name = 'StableSourceIds1795511500000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    for (const table of ['chunks', 'code_examples']) {
      await q.query(`ALTER TABLE ${s}.${table} DROP CONSTRAINT ${table}_source_id_fkey`);
      await q.query(
        `ALTER TABLE ${s}.${table} ADD CONSTRAINT ${table}_source_id_fkey FOREIGN KEY (source_id)
           REFERENCES ${s}.sources (source_id) ON DELETE CASCADE ON UPDATE CASCADE`,
      );
    }
    await q.query(`CREATE TEMP TABLE source_renames ON COMMIT DROP AS
      SELECT source_id AS old_id,
             CASE WHEN source_type = 'file' THEN 'file:' || source_id
                  ELSE replace(source_id, ':', '_') || '-' || left(encode(sha256(convert_to(url, 'UTF8')), 'hex'), 8) END AS new_id
        FROM ${s}.sources
       WHERE NOT (source_type = 'file' AND source_id LIKE 'file:%')`);
    await q.query(`UPDATE ${s}.sources x SET source_id = r.new_id FROM source_renames r WHERE x.source_id = r.old_id`);
    await q.query(`UPDATE ${s}.progress x SET source_id = r.new_id FROM source_renames r WHERE x.source_id = r.old_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`UPDATE ${s}.sources SET source_id = substr(source_id, 6) WHERE source_type = 'file' AND source_id LIKE 'file:%'`);
    await q.query(`UPDATE ${s}.sources SET source_id = regexp_replace(source_id, '-[0-9a-f]{8}$', '') WHERE source_type = 'url'`);
  }
}
