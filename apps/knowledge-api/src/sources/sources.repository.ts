import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { ChunkRow, CodeExampleRow, EmbeddedKind, ItemFilters, PendingEmbedding, KnowledgeType, NewChunk, NewCodeExample, SourceInput, SourceRow, SourceStatus, VectorMode } from './sources.types';

/** Vector hits below this cosine similarity are dropped (unrelated text is always "nearest" to something). */
export const MIN_SIMILARITY = 0.15;

const CHUNK_COLUMNS = `c.id, c.source_id, c.url, c.title, c.content, c.headers, c.char_count, c.word_count,
  s.knowledge_type, s.tags, c.created_at, c.updated_at`;

/**
 * The source aggregate: a source, its chunks (the spec's knowledge items) and its code examples.
 * The only place that touches their tables. Its indexes, the HNSW index of the embeddings
 * included, are made by migrations (migrations/1795511200000-ChunksEmbeddingIndex.ts), never here.
 */
@Injectable()
export class SourcesRepository {
  private mode: Promise<VectorMode> | null = null;
  private readonly indexed = new Set<number>();

  constructor(private readonly db: Database) {}

  private get sources(): string {
    return this.db.table('sources');
  }
  private get chunks(): string {
    return this.db.table('chunks');
  }
  private get codeExamples(): string {
    return this.db.table('code_examples');
  }

  /** How embeddings are stored here: a pgvector `vector`, or a `real[]` where the extension is missing. */
  vectorMode(): Promise<VectorMode> {
    this.mode ??= this.db
      .one<{ type: string }>(
        `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
          WHERE a.attrelid = $1::regclass AND a.attname = 'embedding'`,
        [this.chunks],
      )
      .then((row) => (row?.type === 'vector' || row?.type?.endsWith('.vector') ? 'pgvector' : 'array'));
    return this.mode;
  }

  async upsertSource(input: SourceInput): Promise<{ created: boolean }> {
    const row = await this.db.one<{ created: boolean }>(
      `INSERT INTO ${this.sources} AS s (source_id, title, description, source_type, url, knowledge_type, tags,
              update_frequency, max_depth, next_crawl_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
               CASE WHEN $8::int IS NULL OR $8::int <= 0 THEN NULL ELSE now() + make_interval(days => $8::int) END)
       ON CONFLICT (source_id) DO UPDATE SET
         title = EXCLUDED.title, description = EXCLUDED.description, url = EXCLUDED.url,
         knowledge_type = EXCLUDED.knowledge_type, tags = EXCLUDED.tags,
         update_frequency = EXCLUDED.update_frequency, max_depth = EXCLUDED.max_depth,
         next_crawl_at = EXCLUDED.next_crawl_at, last_updated = now()
       RETURNING (xmax = 0) AS created`,
      [
        input.source_id,
        input.title,
        input.description,
        input.source_type,
        input.url,
        input.knowledge_type,
        input.tags,
        input.update_frequency,
        input.max_depth,
      ],
    );
    return { created: !!row?.created };
  }

  findSource(sourceId: string): Promise<SourceRow | null> {
    return this.db.one<SourceRow>(`SELECT * FROM ${this.sources} WHERE source_id = $1`, [sourceId]);
  }

  async titles(sourceIds: string[]): Promise<Map<string, string>> {
    const rows = await this.db.rows<{ source_id: string; title: string }>(
      `SELECT source_id, title FROM ${this.sources} WHERE source_id = ANY($1::text[])`,
      [sourceIds],
    );
    return new Map(rows.map((r) => [r.source_id, r.title]));
  }

  async existingCodeExamples(ids: number[]): Promise<Set<number>> {
    const rows = await this.db.rows<{ id: number }>(`SELECT id FROM ${this.codeExamples} WHERE id = ANY($1::int[])`, [ids]);
    return new Set(rows.map((r) => r.id));
  }

  listSources(): Promise<SourceRow[]> {
    return this.db.rows<SourceRow>(
      `SELECT s.*,
              (SELECT count(*)::int FROM ${this.chunks} c WHERE c.source_id = s.source_id) AS chunks_count,
              (SELECT count(*)::int FROM ${this.codeExamples} e WHERE e.source_id = s.source_id) AS code_examples_count
         FROM ${this.sources} s ORDER BY s.last_updated DESC, s.source_id`,
    );
  }

  /** Applies the given fields; a new update_frequency reschedules the next recrawl of a crawled source. */
  async updateSource(
    sourceId: string,
    patch: { title?: string; knowledge_type?: KnowledgeType; tags?: string[]; status?: SourceStatus; update_frequency?: number },
  ): Promise<boolean> {
    const n = await this.db.affected(
      `UPDATE ${this.sources} SET
         title = COALESCE($2, title),
         knowledge_type = COALESCE($3, knowledge_type),
         tags = COALESCE($4, tags),
         status = COALESCE($5, status),
         update_frequency = COALESCE($6, update_frequency),
         next_crawl_at = CASE
           WHEN $6::int IS NULL OR source_type <> 'url' THEN next_crawl_at
           WHEN $6::int <= 0 THEN NULL
           ELSE last_updated + make_interval(days => $6::int) END,
         last_updated = now()
       WHERE source_id = $1`,
      [sourceId, patch.title ?? null, patch.knowledge_type ?? null, patch.tags ?? null, patch.status ?? null, patch.update_frequency ?? null],
    );
    return n > 0;
  }

  /** Deletes the source with its chunks and code examples; null when there was none. */
  async deleteSource(sourceId: string): Promise<{ pages: number; codeExamples: number } | null> {
    const row = await this.db.one<{ pages: number; code_examples: number; found: boolean }>(
      `WITH pages AS (DELETE FROM ${this.chunks} WHERE source_id = $1 RETURNING 1),
            code AS (DELETE FROM ${this.codeExamples} WHERE source_id = $1 RETURNING 1),
            src AS (DELETE FROM ${this.sources} WHERE source_id = $1 RETURNING 1)
       SELECT (SELECT count(*)::int FROM pages) AS pages, (SELECT count(*)::int FROM code) AS code_examples,
              EXISTS (SELECT 1 FROM src) AS found`,
      [sourceId],
    );
    if (!row?.found) return null;
    return { pages: row.pages, codeExamples: row.code_examples };
  }

  /** url → content hash of the pages stored for a source (a recrawl re-chunks only changed pages). */
  async pageHashes(sourceId: string): Promise<Map<string, string>> {
    const rows = await this.db.rows<{ url: string; page_hash: string }>(
      `SELECT DISTINCT ON (url) url, page_hash FROM ${this.chunks} WHERE source_id = $1 ORDER BY url, chunk_number`,
      [sourceId],
    );
    return new Map(rows.map((r) => [r.url, r.page_hash]));
  }

  /** Removes the chunks and code examples of these pages of a source (before they are stored again). */
  async deletePages(sourceId: string, urls: string[]): Promise<void> {
    if (urls.length === 0) return;
    await this.db.affected(`DELETE FROM ${this.chunks} WHERE source_id = $1 AND url = ANY($2)`, [sourceId, urls]);
    await this.db.affected(`DELETE FROM ${this.codeExamples} WHERE source_id = $1 AND url = ANY($2)`, [sourceId, urls]);
  }

  async insertChunks(sourceId: string, chunks: NewChunk[]): Promise<number> {
    if (chunks.length === 0) return 0;
    const mode = await this.vectorMode();
    const embeddings = chunks.map((c) => vectorLiteral(mode, c.embedding));
    const cast = mode === 'pgvector' ? 'vector' : 'real[]';
    const n = await this.db.affected(
      `INSERT INTO ${this.chunks} (source_id, url, title, chunk_number, content, headers, char_count, word_count, page_hash, embedding, embedding_model)
       SELECT $1, t.url, t.title, t.chunk_number, t.content,
              ARRAY(SELECT jsonb_array_elements_text(t.headers)), t.char_count, t.word_count, t.page_hash, t.embedding::${cast}, t.model
         FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::jsonb[], $7::int[], $8::int[], $9::text[], $10::text[], $11::text[])
           AS t(url, title, chunk_number, content, headers, char_count, word_count, page_hash, embedding, model)
       ON CONFLICT (source_id, url, chunk_number) DO UPDATE SET
         title = EXCLUDED.title, content = EXCLUDED.content, headers = EXCLUDED.headers,
         char_count = EXCLUDED.char_count, word_count = EXCLUDED.word_count, page_hash = EXCLUDED.page_hash,
         embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model, updated_at = now()`,
      [
        sourceId,
        chunks.map((c) => c.url),
        chunks.map((c) => c.title),
        chunks.map((c) => c.chunk_number),
        chunks.map((c) => c.content),
        chunks.map((c) => JSON.stringify(c.headers)),
        chunks.map((c) => c.char_count),
        chunks.map((c) => c.word_count),
        chunks.map((c) => c.page_hash),
        embeddings,
        chunks.map((c) => (c.embedding ? c.embedding_model : null)),
      ],
    );
    return n;
  }

  async insertCodeExamples(sourceId: string, examples: NewCodeExample[]): Promise<number> {
    if (examples.length === 0) return 0;
    const mode = await this.vectorMode();
    return this.db.affected(
      `INSERT INTO ${this.codeExamples} (source_id, url, example_number, language, content, summary, embedding, embedding_model)
       SELECT $1, t.url, t.n, t.language, t.content, t.summary, t.embedding::${mode === 'pgvector' ? 'vector' : 'real[]'}, t.model
         FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
           AS t(url, n, language, content, summary, embedding, model)
       ON CONFLICT (source_id, url, example_number) DO UPDATE SET
         language = EXCLUDED.language, content = EXCLUDED.content, summary = EXCLUDED.summary,
         embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model`,
      [
        sourceId,
        examples.map((e) => e.url),
        examples.map((e) => e.example_number),
        examples.map((e) => e.language),
        examples.map((e) => e.content),
        examples.map((e) => e.summary),
        examples.map((e) => vectorLiteral(mode, e.embedding)),
        examples.map((e) => (e.embedding ? e.embedding_model : null)),
      ],
    );
  }

  /** URLs of the pages stored for a source (a recrawl removes those it no longer finds). */
  async pageUrls(sourceId: string): Promise<string[]> {
    const rows = await this.db.rows<{ url: string }>(
      `SELECT url FROM ${this.chunks} WHERE source_id = $1 UNION SELECT url FROM ${this.codeExamples} WHERE source_id = $1`,
      [sourceId],
    );
    return rows.map((r) => r.url);
  }

  /**
   * Full-text search of the code examples of active sources (GIN index on language A, summary B,
   * code C), optionally of one source and one language; score rank/(rank+1).
   */
  fullTextCodeExamples(query: string, source: string | null, language: string | null, limit: number): Promise<CodeExampleRow[]> {
    return this.db.rows<CodeExampleRow>(
      `SELECT e.id, e.source_id, e.url, e.language, e.content, e.summary, ts_rank_cd(e.tsv, q, 32)::float8 AS score
         FROM ${this.codeExamples} e JOIN ${this.sources} s USING (source_id), websearch_to_tsquery('english', $1) q
        WHERE e.tsv @@ q AND s.status = 'active' AND ($2::text IS NULL OR e.source_id = $2)
          AND ($3::text IS NULL OR lower(e.language) = lower($3))
        ORDER BY score DESC, e.id LIMIT $4`,
      [query, source, language, limit],
    );
  }

  /**
   * Code examples nearest to a unit vector (exact scan: code examples are few next to chunks);
   * without pgvector over the candidates of a widened full-text query, as `nearest`.
   */
  async nearestCodeExamples(embedding: number[], query: string, source: string | null, language: string | null, limit: number): Promise<CodeExampleRow[]> {
    const dim = embedding.length;
    const cols = `e.id, e.source_id, e.url, e.language, e.content, e.summary`;
    const filters = `s.status = 'active' AND ($2::text IS NULL OR e.source_id = $2) AND ($4::text IS NULL OR lower(e.language) = lower($4))`;
    const rows =
      (await this.vectorMode()) === 'pgvector'
        ? await this.db.rows<CodeExampleRow>(
            `SELECT ${cols}, (1 - (e.embedding::vector(${dim}) <=> $1::vector(${dim})))::float8 AS score
               FROM ${this.codeExamples} e JOIN ${this.sources} s USING (source_id)
              WHERE e.embedding IS NOT NULL AND vector_dims(e.embedding) = ${dim} AND ${filters}
              ORDER BY e.embedding::vector(${dim}) <=> $1::vector(${dim}) LIMIT $3`,
            [`[${embedding.join(',')}]`, source, limit, language],
          )
        : await this.db.rows<CodeExampleRow>(
            `WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $5)::text, ' & ', ' | '), '')::tsquery AS q)
             SELECT ${cols}, (SELECT sum(a * b) FROM unnest(e.embedding, $1::real[]) AS t(a, b))::float8 AS score
               FROM ${this.codeExamples} e JOIN ${this.sources} s USING (source_id), q
              WHERE q.q IS NOT NULL AND e.tsv @@ q.q AND e.embedding IS NOT NULL AND array_length(e.embedding, 1) = ${dim} AND ${filters}
              ORDER BY score DESC, e.id LIMIT $3`,
            [`{${embedding.join(',')}}`, source, limit, language, query],
          );
    return rows.filter((r) => (r.score ?? 0) >= MIN_SIMILARITY);
  }

  /**
   * Rows with no vector or one made by another model than `model`, after id `afterId` (the
   * backfill walks them in id order), with the text that is embedded for them.
   */
  pendingEmbeddings(kind: EmbeddedKind, model: string, afterId: number, limit: number): Promise<PendingEmbedding[]> {
    const text =
      kind === 'chunks'
        ? `CASE WHEN title <> '' THEN title || E'\n\n' || content ELSE content END`
        : `CASE WHEN summary <> '' THEN summary || E'\n\n' || content ELSE content END`;
    return this.db.rows<PendingEmbedding>(
      `SELECT id, ${text} AS text FROM ${this.db.table(kind)}
        WHERE (embedding IS NULL OR embedding_model IS DISTINCT FROM $1) AND id > $2 ORDER BY id LIMIT $3`,
      [model, afterId, limit],
    );
  }

  /** These chunks with their page's text (its chunks in order, the first `maxChars` characters): what their context is written from. */
  chunksWithPages(ids: number[], maxChars: number): Promise<Array<{ id: number; title: string; content: string; document: string }>> {
    return this.db.rows(
      `SELECT c.id, c.title, c.content,
              left((SELECT string_agg(p.content, E'\n\n' ORDER BY p.chunk_number) FROM ${this.chunks} p
                     WHERE p.source_id = c.source_id AND p.url = c.url), $2) AS document
         FROM ${this.chunks} c WHERE c.id = ANY($1::int[]) ORDER BY c.id`,
      [ids, maxChars],
    );
  }

  async countPendingEmbeddings(kind: EmbeddedKind, model: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.db.table(kind)} WHERE embedding IS NULL OR embedding_model IS DISTINCT FROM $1`,
      [model],
    );
    return row?.n ?? 0;
  }

  /** Stores the vectors made by `model` for these rows. */
  async setEmbeddings(kind: EmbeddedKind, ids: number[], vectors: number[][], model: string): Promise<number> {
    if (ids.length === 0) return 0;
    const mode = await this.vectorMode();
    return this.db.affected(
      `UPDATE ${this.db.table(kind)} x SET embedding = t.embedding::${mode === 'pgvector' ? 'vector' : 'real[]'}, embedding_model = $3
         FROM unnest($1::int[], $2::text[]) AS t(id, embedding) WHERE x.id = t.id`,
      [ids, vectors.map((v) => vectorLiteral(mode, v)), model],
    );
  }

  /** Recomputes the source's word total and marks it updated; returns the total. */
  async refreshTotals(sourceId: string): Promise<number> {
    const row = await this.db.one<{ total: number }>(
      `UPDATE ${this.sources} s SET last_updated = now(),
              total_word_count = COALESCE((SELECT sum(word_count)::int FROM ${this.chunks} c WHERE c.source_id = s.source_id), 0)
        WHERE s.source_id = $1 RETURNING total_word_count AS total`,
      [sourceId],
    );
    return row?.total ?? 0;
  }

  async countChunks(sourceId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.chunks} WHERE source_id = $1`, [sourceId]);
    return row?.n ?? 0;
  }

  private filterSql(f: ItemFilters, first: number): { where: string; params: unknown[] } {
    return {
      where: `($${first}::text IS NULL OR s.knowledge_type = $${first})
          AND ($${first + 1}::text[] IS NULL OR s.tags && $${first + 1}::text[])
          AND ($${first + 2}::text IS NULL OR s.status = $${first + 2})
          AND ($${first + 3}::text IS NULL OR s.source_type = $${first + 3})`,
      params: [f.knowledge_type ?? null, f.tags?.length ? f.tags : null, f.status ?? null, f.source_type ?? null],
    };
  }

  async listItems(filters: ItemFilters, page: number, perPage: number): Promise<{ rows: ChunkRow[]; total: number }> {
    const { where, params } = this.filterSql(filters, 1);
    const count = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.chunks} c JOIN ${this.sources} s USING (source_id) WHERE ${where}`,
      params,
    );
    const rows = await this.db.rows<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} FROM ${this.chunks} c JOIN ${this.sources} s USING (source_id)
        WHERE ${where} ORDER BY c.source_id, c.url, c.chunk_number, c.id LIMIT $5 OFFSET $6`,
      [...params, perPage, (page - 1) * perPage],
    );
    return { rows, total: count?.n ?? 0 };
  }

  /**
   * Full-text search (GIN index on a weighted tsvector: title A, content B; `websearch_to_tsquery`
   * syntax), ranked by `ts_rank_cd` normalised with `rank/(rank+1)`, a score in [0, 1).
   * Only active sources are searched.
   */
  fullText(query: string, source: string | null, limit: number): Promise<ChunkRow[]> {
    return this.db.rows<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS}, ts_rank_cd(c.tsv, q, 32)::float8 AS score
         FROM ${this.chunks} c JOIN ${this.sources} s USING (source_id), websearch_to_tsquery('english', $1) q
        WHERE c.tsv @@ q AND s.status = 'active' AND ($2::text IS NULL OR c.source_id = $2)
        ORDER BY score DESC, c.id LIMIT $3`,
      [query, source, limit],
    );
  }

  /**
   * Nearest chunks to a unit vector by cosine similarity (score = 1 − cosine distance), those
   * below MIN_SIMILARITY dropped.
   * pgvector: exact order from the HNSW index of that dimension. Without pgvector: the 200 best
   * chunks of a widened full-text query (any word of the query; GIN index) ranked by cosine
   * similarity computed in SQL, so a chunk sharing no word with the query is not found.
   */
  async nearest(embedding: number[], query: string, source: string | null, limit: number): Promise<ChunkRow[]> {
    const dim = embedding.length;
    if ((await this.vectorMode()) === 'pgvector') {
      const v = `[${embedding.join(',')}]`;
      const rows = await this.db.rows<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, (1 - (c.embedding::vector(${dim}) <=> $1::vector(${dim})))::float8 AS score
           FROM ${this.chunks} c JOIN ${this.sources} s USING (source_id)
          WHERE c.embedding IS NOT NULL AND vector_dims(c.embedding) = ${dim} AND s.status = 'active'
            AND ($2::text IS NULL OR c.source_id = $2)
          ORDER BY c.embedding::vector(${dim}) <=> $1::vector(${dim}) LIMIT $3`,
        [v, source, limit],
      );
      return rows.filter((r) => (r.score ?? 0) >= MIN_SIMILARITY);
    }
    return this.db.rows<ChunkRow>(
      `WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $4)::text, ' & ', ' | '), '')::tsquery AS q),
            candidates AS (
              SELECT c.id FROM ${this.chunks} c, q
               WHERE q.q IS NOT NULL AND c.tsv @@ q.q AND ($2::text IS NULL OR c.source_id = $2)
               ORDER BY ts_rank_cd(c.tsv, q.q) DESC LIMIT 200)
       SELECT ${CHUNK_COLUMNS},
              (SELECT sum(a * b) FROM unnest(c.embedding, $1::real[]) AS t(a, b))::float8 AS score
         FROM candidates JOIN ${this.chunks} c USING (id) JOIN ${this.sources} s USING (source_id)
        WHERE c.embedding IS NOT NULL AND array_length(c.embedding, 1) = ${dim} AND s.status = 'active'
        ORDER BY score DESC, c.id LIMIT $3`,
      [`{${embedding.join(',')}}`, source, limit, query],
    ).then((rows) => rows.filter((r) => (r.score ?? 0) >= MIN_SIMILARITY));
  }

  /**
   * Whether embeddings of this dimension are stored as pgvector `vector`s without the HNSW index a
   * migration makes for EMBEDDINGS_DIMENSIONS (`chunks_embedding_<dim>_hnsw_idx`): their vector
   * search then scans. False without pgvector (nothing to index there).
   */
  async lacksVectorIndex(dim: number): Promise<boolean> {
    if (this.indexed.has(dim) || (await this.vectorMode()) !== 'pgvector') return false;
    const row = await this.db.one<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks' AND indexname = $2) AS found`,
      [this.db.schema, vectorIndexName(dim)],
    );
    if (row?.found) this.indexed.add(dim);
    return !row?.found;
  }

  /** Crawled sources whose recrawl is due, claimed for this replica (their next date moves on at once). */
  claimDueRecrawls(limit: number): Promise<SourceRow[]> {
    return this.db.claimDue<SourceRow>({
      table: this.sources,
      key: 'source_id',
      where: `next_crawl_at <= now() AND status = 'active' AND source_type = 'url' AND update_frequency > 0`,
      orderBy: 'next_crawl_at ASC',
      limit,
      set: `next_crawl_at = now() + make_interval(days => update_frequency)`,
    });
  }
}

function vectorLiteral(mode: VectorMode, v: number[] | null): string | null {
  if (!v) return null;
  return mode === 'pgvector' ? `[${v.join(',')}]` : `{${v.join(',')}}`;
}

/** The HNSW index of `dim`-dimension embeddings, as migrations/1795511200000-ChunksEmbeddingIndex.ts names it. */
function vectorIndexName(dim: number): string {
  return `chunks_embedding_${dim}_hnsw_idx`;
}
