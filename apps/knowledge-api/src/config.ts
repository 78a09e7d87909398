import { BaseConfig } from '@platform/platform';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const HTTP_URL = /^https?:\/\/\S+$/;

/** knowledge-api's variables (README "Configuration" lists them with their defaults). */
export class KnowledgeApiConfig extends BaseConfig {
  /** Required on every `/api/*` route (`X-API-Key` or `Authorization: Bearer`) when set. */
  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'KNOWLEDGE_API_KEY must be at least 16 characters without spaces' })
  KNOWLEDGE_API_KEY?: string;

  /** Base URL of an OpenAI-compatible server (`POST {EMBEDDINGS_URL}/embeddings`), e.g. http://ollama:11434/v1. */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'EMBEDDINGS_URL must be an http:// or https:// base URL of an OpenAI-compatible server (…/v1)' })
  EMBEDDINGS_URL?: string;

  @IsString()
  EMBEDDINGS_MODEL = 'text-embedding-3-small';

  /** Sent as `Authorization: Bearer` to the embeddings server when set. */
  @IsOptional()
  @IsString()
  EMBEDDINGS_API_KEY?: string;

  @IsInt()
  @Min(1000)
  EMBEDDINGS_TIMEOUT_MS = 30_000;

  /**
   * Dimensions of the model's embeddings (text-embedding-3-small: 1536). Read by the migrations, not
   * at run time: where pgvector is installed, `migrate` (the migration Job; the start in development)
   * creates the HNSW index of this dimension. Unset: no index, vector search scans.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2000, { message: 'EMBEDDINGS_DIMENSIONS must be at most 2000 (the most an HNSW index takes); leave it unset for larger embeddings (vector search then scans)' })
  EMBEDDINGS_DIMENSIONS?: number;

  /** Crawl private, loopback and link-local addresses (tests, intranet deployments). Metadata addresses stay refused. */
  @IsBoolean()
  CRAWL_ALLOW_PRIVATE = false;

  /** Pages fetched at once by one crawl (the spec's 5 workers). */
  @IsInt()
  @Min(1)
  @Max(20)
  CRAWL_CONCURRENCY = 5;

  /** Smallest gap between two requests to one host (politeness); robots.txt `Crawl-delay` raises it. */
  @IsInt()
  @Min(0)
  CRAWL_HOST_DELAY_MS = 200;

  /** Pages one crawl fetches at most. */
  @IsInt()
  @Min(1)
  CRAWL_MAX_PAGES = 1000;

  /** Largest page (or sitemap, or .txt) body read, in bytes. */
  @IsInt()
  @Min(1024)
  CRAWL_MAX_PAGE_BYTES = 5 * 1024 * 1024;

  /** Deadline of one page fetch, redirects included. */
  @IsInt()
  @Min(100)
  CRAWL_PAGE_TIMEOUT_MS = 15_000;

  /** How often the crawl worker looks for queued crawls, crawls of a replica that died, and due recrawls. */
  @IsInt()
  @Min(50)
  CRAWL_POLL_MS = 2_000;
}
