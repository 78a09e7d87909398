import { availableParallelism } from 'node:os';
import { BaseConfig } from '@platform/platform';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

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

  /** Deadline of a search query's embedding (one attempt); past it the query answers full-text results with a note. */
  @IsInt()
  @Min(50)
  EMBEDDINGS_QUERY_TIMEOUT_MS = 2_000;

  /** Failed query embeddings in a row that open the circuit breaker (queries then skip the embeddings server). */
  @IsInt()
  @Min(1)
  EMBEDDINGS_BREAKER_FAILURES = 3;

  /** How long the breaker stays open before one query tries the server again. */
  @IsInt()
  @Min(100)
  EMBEDDINGS_BREAKER_COOLDOWN_MS = 30_000;

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

  /**
   * `auto`: pgvector where the server offers it, else the real[] fallback. `pgvector`: required —
   * `migrate` converts a fallback store (a server that got the extension later) and fails where it
   * is missing.
   */
  @IsIn(['auto', 'pgvector'], { message: 'KNOWLEDGE_VECTOR_STORE must be auto or pgvector' })
  KNOWLEDGE_VECTOR_STORE: 'auto' | 'pgvector' = 'auto';

  /** A rerank endpoint (Cohere/Jina/vLLM `…/rerank`, or text-embeddings-inference `/rerank`); unset: no reranking. */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'RERANK_URL must be an http:// or https:// URL of a rerank endpoint (…/v1 or …/rerank)' })
  RERANK_URL?: string;

  /** Model name sent to the rerank endpoint (unset: none sent, the server's default). */
  @IsOptional()
  @IsString()
  RERANK_MODEL?: string;

  /** Sent as `Authorization: Bearer` to the rerank endpoint when set. */
  @IsOptional()
  @IsString()
  RERANK_API_KEY?: string;

  /** Deadline of one rerank call (a query waits for it; past it the unreranked order is answered with a note). */
  @IsInt()
  @Min(50)
  RERANK_TIMEOUT_MS = 3_000;

  /**
   * Base URL of an OpenAI-compatible chat server (`POST {LLM_URL}/chat/completions`, e.g.
   * http://ollama:11434/v1): drafts a new project's features and tasks, and writes the context of
   * chunks when CONTEXTUAL_EMBEDDINGS is on. Unset: neither.
   */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'LLM_URL must be an http:// or https:// base URL of an OpenAI-compatible chat server (…/v1)' })
  LLM_URL?: string;

  /** The chat model (the MCP config's `model_choice`). */
  @IsString()
  LLM_MODEL = 'gpt-4o-mini';

  /** Sent as `Authorization: Bearer` to the chat server when set. */
  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  /** Deadline of one chat call. */
  @IsInt()
  @Min(100)
  LLM_TIMEOUT_MS = 60_000;

  /**
   * Contextual embeddings: before a chunk is embedded, the chat model (LLM_URL) writes a short
   * context situating it in its document, and the context and the chunk are embedded together.
   * Needs LLM_URL and EMBEDDINGS_URL (else it does nothing, and `/api/health` says so).
   */
  @IsBoolean()
  CONTEXTUAL_EMBEDDINGS = false;

  /** Crawl private, loopback and link-local addresses (tests, intranet deployments). Metadata addresses stay refused. */
  @IsBoolean()
  CRAWL_ALLOW_PRIVATE = false;

  /** Pages fetched at once by one crawl (the spec's 5 workers). */
  @IsInt()
  @Min(1)
  @Max(20)
  CRAWL_CONCURRENCY = 5;

  /**
   * Worker threads that turn crawled HTML into markdown (linkedom, Readability, Turndown: most of a
   * page's CPU time), so the event loop keeps fetching and storing meanwhile; 0 converts on the
   * event loop. Default: the cores but one, at least 1, at most 4.
   */
  @IsInt()
  @Min(0)
  @Max(16)
  CRAWL_PARSE_THREADS = Math.min(4, Math.max(1, availableParallelism() - 1));

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

  /**
   * How long `POST /api/documents/upload` waits for its job (extraction, chunking, embedding run
   * off the request): done in time → 200 with the Document; else 202 with the progress_id to follow.
   */
  @IsInt()
  @Min(0)
  UPLOAD_WAIT_MS = 10_000;

  /** Progress of crawls and jobs that ended is deleted this many hours after they ended (GET /api/progress then answers 404). */
  @IsInt()
  @Min(1)
  PROGRESS_RETENTION_HOURS = 168;

  /** How often the crawl worker looks for queued crawls, crawls of a replica that died, and due recrawls. */
  @IsInt()
  @Min(50)
  CRAWL_POLL_MS = 2_000;

  /**
   * The lease of a running crawl (renewed every second while it runs): a replica that dies without
   * handing its crawls back (killed, lost) has them taken over by another once it ran out.
   */
  @IsInt()
  @Min(2)
  CRAWL_LEASE_SECONDS = 60;

  // --- The MCP server's container (`/api/mcp/*`, src/mcp) ---

  /** Where the MCP server's workload runs: a Docker container (Docker Engine API) or a Kubernetes Deployment (scaled 0 ↔ 1). */
  @IsIn(['docker', 'kubernetes'], { message: 'MCP_CONTAINER_PROVIDER must be docker or kubernetes' })
  MCP_CONTAINER_PROVIDER: 'docker' | 'kubernetes' = 'docker';

  /** The workload: a container name (or `label=key=value`) for Docker, `namespace/deployment` for Kubernetes. */
  @IsString()
  MCP_CONTAINER = 'knowledge-mcp';

  /** Docker Engine API: unix:///var/run/docker.sock (default) or tcp://host:port. */
  @IsOptional()
  @IsString()
  DOCKER_HOST?: string;

  /** Non-empty: TLS to a tcp DOCKER_HOST, verified against DOCKER_CERT_PATH/ca.pem (the Docker CLI's variables). */
  @IsOptional()
  @IsString()
  DOCKER_TLS_VERIFY?: string;

  @IsOptional()
  @IsString()
  DOCKER_CERT_PATH?: string;

  /** Kubernetes: kubeconfig path(s); in-cluster (service account) when unset and KUBERNETES_SERVICE_HOST is set. */
  @IsOptional()
  @IsString()
  KUBECONFIG?: string;

  @IsOptional()
  @IsString()
  KUBERNETES_SERVICE_HOST?: string;

  /** Deadline of one call to the Docker engine or the Kubernetes API server; past it the status is `docker_unavailable`. */
  @IsInt()
  @Min(100)
  MCP_ENGINE_TIMEOUT_MS = 5_000;

  /** The MCP server's address (host name) as knowledge-api reaches it and clients are told; `POST /api/mcp/config` changes it for the next start. */
  @Matches(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9a-fA-F:]+\]$/, { message: 'MCP_HOST must be a host name or address' })
  MCP_HOST = 'knowledge-mcp';

  @IsInt()
  @Min(1)
  @Max(65535)
  MCP_PORT = 3009;

  /** The transports the MCP server serves (read by it at its start): all, streamable-http or sse. */
  @IsIn(['all', 'streamable-http', 'sse'], { message: 'MCP_TRANSPORT must be all, streamable-http or sse' })
  MCP_TRANSPORT: 'all' | 'streamable-http' | 'sse' = 'all';

  /** The MCP server's bearer key (its KNOWLEDGE_MCP_API_KEY), to list its tools over MCP. */
  @IsOptional()
  @IsString()
  KNOWLEDGE_MCP_API_KEY?: string;

  /** Log entries of the MCP server kept for `GET /api/mcp/logs` (shared in Redis when REDIS_URL is set). */
  @IsInt()
  @Min(10)
  @Max(100_000)
  MCP_LOG_BUFFER = 1000;

  /** How often the log tailer looks again whether the MCP server runs (to follow its logs) and renews its lock. */
  @IsInt()
  @Min(50)
  MCP_LOG_POLL_MS = 2_000;
}
