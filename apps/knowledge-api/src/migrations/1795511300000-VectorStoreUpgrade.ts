import { schemaOf, type MigrationClass } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TIMESTAMP = 1795511300000;

async function embeddingType(q: QueryRunner, table: string): Promise<string | null> {
  const [column] = (await q.query(
    `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
      WHERE a.attrelid = $1::regclass AND a.attname = 'embedding' AND NOT a.attisdropped`,
    [table],
  )) as Array<{ type: string }>;
  return column?.type ?? null;
}

function isVector(type: string | null): boolean {
  return type === 'vector' || !!type?.endsWith('.vector');
}

export async function pgvectorAvailable(q: QueryRunner): Promise<boolean> {
  return ((await q.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)) as unknown[]).length > 0;
}

/**
 * Converts the `real[]` embedding columns of the fallback (`chunks`, and `code_examples` where it
 * has one) to pgvector's `vector` in place (pgvector's `real[]::vector` cast: the stored vectors
 * stay) and makes the HNSW index of `dimensions` on the chunks. Call only where the extension is
 * available. Returns whether anything was converted.
 */
export async function convertToPgvector(q: QueryRunner, dimensions: number | undefined): Promise<boolean> {
  const s = schemaOf(q);
  await q.query(`CREATE EXTENSION IF NOT EXISTS vector`);
  let converted = false;
  for (const table of ['chunks', 'code_examples']) {
    const type = await embeddingType(q, `${s}.${table}`);
    if (type === null || isVector(type)) continue;
    await q.query(`ALTER TABLE ${s}.${table} ALTER COLUMN embedding TYPE vector USING embedding::vector`);
    converted = true;
  }
  if (dimensions) {
    await q.query(
      `CREATE INDEX IF NOT EXISTS chunks_embedding_${dimensions}_hnsw_idx ON ${s}.chunks
         USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WHERE vector_dims(embedding) = ${dimensions}`,
    );
  }
  return converted;
}

/**
 * The vector store's second step:
 * - **fallback → pgvector**: where `chunks.embedding` is still the `real[]` of a server that had no
 *   pgvector when KnowledgeTables ran and the extension is available now (the deployment moved to
 *   `pgvector/pgvector:pg16`), the extension is created and the column converted in place
 *   (`real[]::vector`, pgvector's cast: the vectors stored stay), and the HNSW index of
 *   EMBEDDINGS_DIMENSIONS made (ChunksEmbeddingIndex was recorded without one on the fallback).
 *   Where the extension is still missing nothing is converted: the fallback stays (a server that
 *   gains it later is converted by RequirePgvector1795511400000, KNOWLEDGE_VECTOR_STORE=pgvector).
 * - `embedding_model` on chunks: the model that made each vector (NULL for vectors stored before
 *   this migration: the backfill job re-embeds them with the configured model).
 * - code examples become searchable: a weighted `tsvector` (language A, summary B, code C) with a
 *   GIN index, and an `embedding` of the same kind as the chunks' with its `embedding_model`.
 * - one unfinished embeddings backfill at a time (`progress`), and `uploads`: the file of an
 *   upload job until the job has stored it.
 */
export function vectorStoreUpgrade(dimensions: number | undefined): MigrationClass {
  return class VectorStoreUpgrade implements MigrationInterface {
    name = `VectorStoreUpgrade${TIMESTAMP}`;

    async up(q: QueryRunner): Promise<void> {
      const s = schemaOf(q);
      if (!isVector(await embeddingType(q, `${s}.chunks`)) && (await pgvectorAvailable(q))) await convertToPgvector(q, dimensions);
      const vector = isVector(await embeddingType(q, `${s}.chunks`));
      await q.query(`ALTER TABLE ${s}.chunks ADD COLUMN embedding_model text`);
      await q.query(`CREATE INDEX chunks_embedding_model_idx ON ${s}.chunks (embedding_model)`);
      await q.query(`
        ALTER TABLE ${s}.code_examples
          ADD COLUMN embedding ${vector ? 'vector' : 'real[]'},
          ADD COLUMN embedding_model text,
          ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('simple', language), 'A') || setweight(to_tsvector('english', summary), 'B')
              || setweight(to_tsvector('english', content), 'C')
          ) STORED`);
      await q.query(`CREATE INDEX code_examples_tsv_idx ON ${s}.code_examples USING gin (tsv)`);
      // one unfinished embeddings backfill at a time
      await q.query(`CREATE UNIQUE INDEX progress_one_active_job_idx ON ${s}.progress (kind) WHERE kind = 'backfill' AND run_state <> 'finished'`);
      // an upload's file waits here for the job that extracts, chunks and embeds it (any replica runs it)
      await q.query(`
        CREATE TABLE ${s}.uploads (
          progress_id uuid PRIMARY KEY REFERENCES ${s}.progress (progress_id) ON DELETE CASCADE,
          content bytea NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`);
    }

    async down(q: QueryRunner): Promise<void> {
      const s = schemaOf(q);
      await q.query(`DROP TABLE IF EXISTS ${s}.uploads`);
      await q.query(`DROP INDEX IF EXISTS ${s}.progress_one_active_job_idx`);
      await q.query(`ALTER TABLE ${s}.code_examples DROP COLUMN IF EXISTS tsv, DROP COLUMN IF EXISTS embedding, DROP COLUMN IF EXISTS embedding_model`);
      await q.query(`ALTER TABLE ${s}.chunks DROP COLUMN IF EXISTS embedding_model`);
    }
  };
}

/**
 * Added to the migrations by KNOWLEDGE_VECTOR_STORE=pgvector: the deployment requires pgvector.
 * Converts a fallback `real[]` store (a server that got the extension after VectorStoreUpgrade ran)
 * and fails the migrate with what to do where the extension is missing, rather than serving the
 * lexical fallback unnoticed.
 */
export function requirePgvector(dimensions: number | undefined): MigrationClass {
  return class RequirePgvector implements MigrationInterface {
    name = 'RequirePgvector1795511400000';

    async up(q: QueryRunner): Promise<void> {
      if (!(await pgvectorAvailable(q))) {
        throw new Error(
          'KNOWLEDGE_VECTOR_STORE=pgvector but this PostgreSQL has no pgvector extension: run the image pgvector/pgvector:pg16 (or install the extension), or set KNOWLEDGE_VECTOR_STORE=auto to keep the real[] fallback',
        );
      }
      await convertToPgvector(q, dimensions);
    }

    async down(): Promise<void> {
      // the vectors stay pgvector's: converting back would lose nothing but gain nothing
    }
  };
}
