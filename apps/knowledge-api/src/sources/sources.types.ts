/**
 * The source aggregate's shapes: a source, its chunks (the spec's knowledge items) and its code
 * examples, as SourcesRepository reads and writes them (snake_case columns). Other features use
 * these types; only the sources feature reaches the repository.
 */
/** The kinds of knowledge a source holds: what crawls, uploads and item filters accept as `knowledge_type`. */
export const KNOWLEDGE_TYPES = ['technical', 'business', 'general'] as const;
export type KnowledgeType = (typeof KNOWLEDGE_TYPES)[number];
export type SourceStatus = 'active' | 'archived';
export type SourceType = 'url' | 'file';

export interface SourceRow {
  source_id: string;
  title: string;
  description: string;
  source_type: SourceType;
  url: string | null;
  knowledge_type: KnowledgeType;
  tags: string[];
  status: SourceStatus;
  update_frequency: number | null;
  max_depth: number | null;
  next_crawl_at: Date | null;
  total_word_count: number;
  created_at: Date;
  last_updated: Date;
  chunks_count?: number;
  code_examples_count?: number;
}

export type SourceInput = Pick<
  SourceRow,
  'source_id' | 'title' | 'description' | 'source_type' | 'url' | 'knowledge_type' | 'tags' | 'update_frequency' | 'max_depth'
>;

export interface NewChunk {
  url: string;
  title: string;
  chunk_number: number;
  content: string;
  headers: string[];
  char_count: number;
  word_count: number;
  page_hash: string;
  embedding: number[] | null;
  /** the model that made `embedding` (null with it) */
  embedding_model: string | null;
}

export interface NewCodeExample {
  url: string;
  example_number: number;
  language: string;
  content: string;
  summary: string;
  embedding: number[] | null;
  embedding_model: string | null;
}

export interface CodeExampleRow {
  id: number;
  source_id: string;
  url: string;
  language: string;
  content: string;
  summary: string;
  score?: number;
}

/** What the embeddings backfill embeds: chunks and code examples. */
export type EmbeddedKind = 'chunks' | 'code_examples';

export interface PendingEmbedding {
  id: number;
  text: string;
}

export interface ChunkRow {
  id: number;
  source_id: string;
  url: string;
  title: string;
  content: string;
  headers: string[];
  char_count: number;
  word_count: number;
  knowledge_type: KnowledgeType;
  tags: string[];
  created_at: Date;
  updated_at: Date;
  score?: number;
}

export interface ItemFilters {
  knowledge_type?: KnowledgeType;
  tags?: string[];
  status?: SourceStatus;
  source_type?: SourceType;
}

export type VectorMode = 'pgvector' | 'array';
