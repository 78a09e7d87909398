import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sources, their chunks and code examples, and crawl progress.
 *
 * Embeddings: where the server offers pgvector (`pg_available_extensions`; the embedded PGlite
 * has it) the extension is created and `chunks.embedding` is a `vector` of any dimension (the HNSW
 * index of the configured dimension is ChunksEmbeddingIndex's, 1795511200000). Without
 * it `chunks.embedding` is a `real[]` (unit-length vectors) and vector search ranks the candidates
 * of the GIN-indexed full-text search by cosine similarity instead (see search/search.service.ts).
 */
export class KnowledgeTables1795511100000 implements MigrationInterface {
  name = 'KnowledgeTables1795511100000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    const available = (await q.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)) as unknown[];
    const vector = available.length > 0;
    if (vector) await q.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    await q.query(`
      CREATE TABLE ${s}.sources (
        source_id text PRIMARY KEY,
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        source_type text NOT NULL CHECK (source_type IN ('url', 'file')),
        url text,
        knowledge_type text NOT NULL CHECK (knowledge_type IN ('technical', 'business', 'general')),
        tags text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        update_frequency integer,
        max_depth integer,
        next_crawl_at timestamptz,
        total_word_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sources_next_crawl_idx ON ${s}.sources (next_crawl_at) WHERE next_crawl_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE ${s}.chunks (
        id serial PRIMARY KEY,
        source_id text NOT NULL REFERENCES ${s}.sources (source_id) ON DELETE CASCADE,
        url text NOT NULL,
        title text NOT NULL DEFAULT '',
        chunk_number integer NOT NULL,
        content text NOT NULL,
        headers text[] NOT NULL DEFAULT '{}',
        char_count integer NOT NULL,
        word_count integer NOT NULL,
        page_hash text NOT NULL,
        embedding ${vector ? 'vector' : 'real[]'},
        tsv tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content), 'B')
        ) STORED,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (source_id, url, chunk_number)
      )`);
    await q.query(`CREATE INDEX chunks_tsv_idx ON ${s}.chunks USING gin (tsv)`);
    await q.query(`
      CREATE TABLE ${s}.code_examples (
        id serial PRIMARY KEY,
        source_id text NOT NULL REFERENCES ${s}.sources (source_id) ON DELETE CASCADE,
        url text NOT NULL,
        example_number integer NOT NULL,
        language text NOT NULL,
        content text NOT NULL,
        summary text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (source_id, url, example_number)
      )`);
    await q.query(`
      CREATE TABLE ${s}.progress (
        progress_id uuid PRIMARY KEY,
        kind text NOT NULL DEFAULT 'crawl',
        status text NOT NULL,
        percentage integer NOT NULL DEFAULT 0,
        state jsonb NOT NULL DEFAULT '{}',
        logs jsonb NOT NULL DEFAULT '[]',
        request jsonb NOT NULL,
        source_id text,
        run_state text NOT NULL DEFAULT 'queued' CHECK (run_state IN ('queued', 'running', 'finished')),
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        cancel_requested boolean NOT NULL DEFAULT false,
        start_time timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX progress_unfinished_idx ON ${s}.progress (start_time) WHERE run_state <> 'finished'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE IF EXISTS ${s}.progress, ${s}.code_examples, ${s}.chunks, ${s}.sources`);
  }
}
