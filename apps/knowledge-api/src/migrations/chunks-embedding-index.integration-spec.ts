// The embeddings' HNSW index is made by `node main.js migrate` (the migration Job) for the dimension
// the configuration gives, never while serving. On a server with pgvector (the embedded PGlite:
// run with TEST_DATABASE_URL=postgres://postgres@127.0.0.1:1/none) the index is created; on one
// without it (this machine's PostgreSQL: the real[] fallback) the migration is recorded and does nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runService } from '@platform/platform';
import { createTestDatabase, testServices, type TestDatabase } from '@platform/testing';
import { Client } from 'pg';
import { knowledgeApiService } from '../service';
import type { QueryRunner } from 'typeorm';
import { sourceIdOf } from '../crawl/crawl.service';
import { uploadSourceId } from '../documents/documents.service';
import { chunksEmbeddingIndex } from './1795511200000-ChunksEmbeddingIndex';
import { StableSourceIds1795511500000 } from './1795511500000-StableSourceIds';

describe('ChunksEmbeddingIndex migration (integration)', () => {
  let database: TestDatabase;
  let schema: string;
  let dataDir: string;
  let exit: jest.SpyInstance;
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;
  const output = (spy: jest.SpyInstance) => spy.mock.calls.map((c) => String(c[0])).join('');

  /** `node main.js migrate` as the migration Job runs it: migrations not run at start, only by the command. */
  async function migrate(env: Record<string, string> = {}): Promise<string> {
    stdout.mockClear();
    exit.mockClear();
    await runService(knowledgeApiService, {
      argv: ['migrate'],
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        DATABASE_SCHEMA: schema,
        DB_MIGRATE_ON_START: 'false',
        ...env,
      },
    });
    expect(output(stderr)).toBe('');
    expect(exit).toHaveBeenCalledWith(0);
    return output(stdout);
  }

  async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  const hnswIndexes = async () =>
    (
      await query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks' AND indexdef ILIKE '%USING hnsw%' ORDER BY indexname`, [
        schema,
      ])
    ).map((r) => r.indexname);
  const applied = async () => (await query<{ name: string }>(`SELECT name FROM ${schema}.migrations ORDER BY id`)).map((r) => r.name);
  const pgvector = async () =>
    (
      await query<{ type: string }>(
        `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attname = 'embedding'`,
        [`${schema}.chunks`],
      )
    )[0]?.type === 'vector';

  beforeEach(async () => {
    database = await createTestDatabase();
    schema = database.schema ?? knowledgeApiService.schema!;
    dataDir = await mkdtemp(path.join(tmpdir(), 'knowledge-api-migrate-'));
    exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates the index of EMBEDDINGS_DIMENSIONS where pgvector is installed, and records itself either way', async () => {
    expect(await migrate({ EMBEDDINGS_DIMENSIONS: '256' })).toContain('ChunksEmbeddingIndex256d1795511200000');
    expect(await applied()).toContain('ChunksEmbeddingIndex256d1795511200000');
    const vector = await pgvector();
    if (testServices().embedded) expect(vector).toBe(true); // PGlite has pgvector: the path `npm start` takes
    expect(await hnswIndexes()).toEqual(vector ? ['chunks_embedding_256_hnsw_idx'] : []);
  });

  it('adds the index of a newly configured dimension at the next migrate, keeping the earlier one', async () => {
    await migrate({ EMBEDDINGS_DIMENSIONS: '256' });
    expect(await migrate({ EMBEDDINGS_DIMENSIONS: '64' })).toContain('applied 1 migration(s): ChunksEmbeddingIndex64d1795511200000');
    expect(await hnswIndexes()).toEqual((await pgvector()) ? ['chunks_embedding_256_hnsw_idx', 'chunks_embedding_64_hnsw_idx'] : []);
    expect(await migrate({ EMBEDDINGS_DIMENSIONS: '64' })).toContain('database is up to date');
  });

  it('makes no index without EMBEDDINGS_DIMENSIONS', async () => {
    const out = await migrate();
    expect(out).toContain('KnowledgeTables1795511100000');
    expect(out).not.toContain('ChunksEmbeddingIndex');
    expect(await hnswIndexes()).toEqual([]);
  });

  it('refuses a dimension no HNSW index takes', () => {
    expect(() => chunksEmbeddingIndex(2001)).toThrow(/at most 2000|from 1 to 2000/);
    expect(() => chunksEmbeddingIndex(0)).toThrow(/from 1 to 2000/);
  });

  it('refuses EMBEDDINGS_DIMENSIONS over 2000 with a message saying what to do', async () => {
    await runService(knowledgeApiService, {
      argv: ['migrate'],
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: database.url, DATABASE_SCHEMA: schema, EMBEDDINGS_DIMENSIONS: '3072' },
    });
    expect(exit).toHaveBeenCalledWith(1);
    expect(output(stderr)).toContain('EMBEDDINGS_DIMENSIONS: must be at most 2000 (the most an HNSW index takes); leave it unset');
  });

  it('converts a fallback real[] store to pgvector in a migration (KNOWLEDGE_VECTOR_STORE=pgvector), keeping the vectors, or refuses where pgvector is missing', async () => {
    await migrate({ EMBEDDINGS_DIMENSIONS: '3' });
    if (!testServices().embedded) {
      // this machine's PostgreSQL has no pgvector: the fallback, and a migrate that requires pgvector fails saying what to do
      expect(await pgvector()).toBe(false);
      stdout.mockClear();
      await runService(knowledgeApiService, {
        argv: ['migrate'],
        env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: database.url, DATABASE_SCHEMA: schema, DB_MIGRATE_ON_START: 'false', KNOWLEDGE_VECTOR_STORE: 'pgvector' },
      });
      expect(exit).toHaveBeenCalledWith(1);
      expect(output(stderr) + output(stdout)).toContain('pgvector/pgvector:pg16');
      expect(await applied()).not.toContain('RequirePgvector1795511400000');
      return;
    }
    // PGlite: make the store what a server without pgvector left (real[] column, no index), as before the image change
    await query(`DROP INDEX ${schema}.chunks_embedding_3_hnsw_idx`);
    await query(`ALTER TABLE ${schema}.chunks ALTER COLUMN embedding TYPE real[] USING embedding::real[]`);
    await query(`ALTER TABLE ${schema}.code_examples ALTER COLUMN embedding TYPE real[] USING embedding::real[]`);
    await query(`INSERT INTO ${schema}.sources (source_id, title, source_type, knowledge_type) VALUES ('s', 's', 'file', 'general')`);
    await query(
      `INSERT INTO ${schema}.chunks (source_id, url, chunk_number, content, char_count, word_count, page_hash, embedding, embedding_model)
       VALUES ('s', 'u', 0, 'x', 1, 1, 'h', '{0.6,0.8,0}', 'm')`,
    );
    expect(await pgvector()).toBe(false);
    expect(await migrate({ EMBEDDINGS_DIMENSIONS: '3', KNOWLEDGE_VECTOR_STORE: 'pgvector' })).toContain('RequirePgvector1795511400000');
    expect(await pgvector()).toBe(true);
    expect(await hnswIndexes()).toEqual(['chunks_embedding_3_hnsw_idx']);
    const [row] = await query<{ v: string }>(`SELECT embedding::text AS v FROM ${schema}.chunks`);
    expect(row.v).toBe('[0.6,0.8,0]');
  });

  it('renames the host and file-name source ids stored before StableSourceIds as the code now makes them, children following', async () => {
    await migrate();
    const url = 'http://docs.example.com:8080/guide/?b=2&a=1';
    await query(`INSERT INTO ${schema}.sources (source_id, title, source_type, url, knowledge_type) VALUES
      ('docs.example.com:8080', 'd', 'url', $1, 'general'), ('notes.md', 'n', 'file', 'file://notes.md', 'general')`, [url]);
    await query(`INSERT INTO ${schema}.chunks (source_id, url, chunk_number, content, char_count, word_count, page_hash) VALUES ('notes.md', 'file://notes.md', 0, 'x', 1, 1, 'h')`);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const runner = { connection: { options: { schema } }, query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows } as unknown as QueryRunner;
      await client.query('BEGIN');
      await new StableSourceIds1795511500000().up(runner);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const ids = (await query<{ source_id: string }>(`SELECT source_id FROM ${schema}.sources ORDER BY source_type DESC`)).map((r) => r.source_id);
    expect(ids).toEqual([sourceIdOf(url), uploadSourceId('notes.md')]);
    expect(await query(`SELECT source_id FROM ${schema}.chunks`)).toEqual([{ source_id: 'file:notes.md' }]);
  });
});
