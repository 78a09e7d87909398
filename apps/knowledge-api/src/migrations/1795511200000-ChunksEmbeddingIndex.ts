import { schemaOf, type MigrationClass } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TIMESTAMP = 1795511200000;

/**
 * The HNSW cosine index of the chunks' embeddings. A pgvector index needs a fixed dimension while
 * `chunks.embedding` takes vectors of any, so the index is an expression index on
 * `embedding::vector(<dim>)` limited to the rows of that dimension (the shape of the nearest-chunks
 * query in SourcesRepository), named `chunks_embedding_<dim>_hnsw_idx`.
 *
 * The dimension is the embeddings model's, so it comes from the configuration the migration runs
 * with: EMBEDDINGS_DIMENSIONS, validated with the rest of KnowledgeApiConfig by `node main.js migrate`
 * (the migration Job) or by the start in development, where migrations run at start.
 * KnowledgeApiModule.forRoot(config) adds this migration for that dimension; unset, there is none
 * (no index: vector search scans). The dimension is part of the migration's name
 * (`ChunksEmbeddingIndex1536d1795511200000`), so configuring another one makes a new pending
 * migration and the next migrate adds its index; an index made earlier stays (rows of the old
 * dimension keep theirs until they are stored again).
 *
 * Without pgvector (`chunks.embedding` is a `real[]`, see KnowledgeTables1795511100000) there is
 * nothing to index: vector search ranks full-text candidates instead, and the migration is recorded
 * without doing anything. The embedded PGlite has pgvector. The index is built in the migration's
 * transaction, so writes to `chunks` wait while it builds (the migration Job runs before the new
 * replicas start).
 */
export function chunksEmbeddingIndex(dimensions: number): MigrationClass {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new Error(`EMBEDDINGS_DIMENSIONS must be an integer from 1 to 2000 (the most an HNSW index takes), got ${dimensions}`);
  }
  const index = `chunks_embedding_${dimensions}_hnsw_idx`;
  return class ChunksEmbeddingIndex implements MigrationInterface {
    name = `ChunksEmbeddingIndex${dimensions}d${TIMESTAMP}`;

    async up(q: QueryRunner): Promise<void> {
      const s = schemaOf(q);
      const [column] = (await q.query(
        `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
          WHERE a.attrelid = $1::regclass AND a.attname = 'embedding'`,
        [`${s}.chunks`],
      )) as Array<{ type: string }>;
      const pgvector = column?.type === 'vector' || !!column?.type.endsWith('.vector');
      if (!pgvector) return;
      await q.query(
        `CREATE INDEX IF NOT EXISTS ${index} ON ${s}.chunks
           USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WHERE vector_dims(embedding) = ${dimensions}`,
      );
    }

    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP INDEX IF EXISTS ${schemaOf(q)}.${index}`);
    }
  };
}
