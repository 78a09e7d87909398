import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search over message texts instead of ILIKE scans: a stored `search` tsvector (English
 * stems and the plain words, so both "refunds" → "refund" and words of other languages match) with a
 * GIN index; and an index for paging a conversation's messages by (created_at, id).
 */
export class SearchMessages1795851977246 implements MigrationInterface {
  name = 'SearchMessages1795851977246';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.messages ADD COLUMN search tsvector
        GENERATED ALWAYS AS (to_tsvector('english'::regconfig, coalesce(content, '')) || to_tsvector('simple'::regconfig, coalesce(content, ''))) STORED;
      CREATE INDEX messages_search_idx ON ${s}.messages USING gin (search);
      CREATE INDEX messages_page_idx ON ${s}.messages (conversation_id, created_at DESC, id DESC);
      DROP INDEX IF EXISTS ${s}.messages_conversation_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE INDEX messages_conversation_idx ON ${s}.messages (conversation_id, created_at);
      DROP INDEX IF EXISTS ${s}.messages_page_idx;
      DROP INDEX IF EXISTS ${s}.messages_search_idx;
      ALTER TABLE ${s}.messages DROP COLUMN search;
    `);
  }
}
