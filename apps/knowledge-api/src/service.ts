import { PlainErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { useRealtime } from '@platform/realtime';
import { KnowledgeApiModule } from './app.module';
import { KnowledgeApiConfig } from './config';

const description = `Knowledge service (spec 002, part A): crawls websites and takes uploaded documents, chunks and stores them, and answers search queries; crawl progress streams over Socket.IO and is readable over REST. Behind the gateway at \`/knowledge\` (Socket.IO path \`/knowledge/socket.io\` there).

**Authentication**: when KNOWLEDGE_API_KEY is set, every \`/api/*\` route and every Socket.IO namespace needs it in \`X-API-Key\` or \`Authorization: Bearer\` (sockets also \`auth: {apiKey}\`); 401 otherwise. Unset: open (development).

**Errors**: \`{"error": "<what went wrong and what to do>"}\` with 400 (validation, bad URL, bad tags), 401, 404 (unknown source: \`{"error": "Source not found"}\`; unknown progress), 409 (a crawl of that host already runs; cancelling an ended crawl), 413 (upload over the limit of its type), 415 (upload type not supported, or content not matching its name), 422 (unreadable document).

**Crawl**: \`…sitemap.xml\` → every listed page (sitemap indexes followed); a \`.txt\` URL → that document as is; otherwise a breadth-first crawl of the same host (\`max_depth\` 1 = the start page only). CRAWL_CONCURRENCY (5) pages at once, robots.txt respected (user agent \`knowledge-api-crawler\`), CRAWL_HOST_DELAY_MS between requests to one host (raised by Crawl-delay), CRAWL_PAGE_TIMEOUT_MS and CRAWL_MAX_PAGE_BYTES per page, CRAWL_MAX_PAGES per crawl; private and loopback addresses refused unless CRAWL_ALLOW_PRIVATE=true. Pages become markdown (Readability, Turndown); fenced code blocks of ≥ 250 characters are stored as code examples with their language; chunks ≤ 5000 characters. Source ids are unique and stable: a crawl's is the start URL's host plus 8 hex digits of the SHA-256 of the start URL (\`docs.example.com-3f2a9c1b\`; a crawl of the same URL refreshes it, only changed pages are chunked again, pages no longer found are removed, each page swapped in one transaction), an upload's \`file:<name>\`. \`POST /api/knowledge-items/{source_id}/refresh\` recrawls a source now; deleting a source cancels its crawl. \`update_frequency\` (days, 0 = never) schedules recrawls. A crawl runs on one replica (queue in the database); another takes it over if that replica dies.

**Progress**: status \`queued\`, then \`analyzing\` 0–5, \`crawling\` 5–25, \`processing\` 25–30, \`source_creation\` 30–35, \`document_storage\` 35–90, \`code_storage\` 90–95, \`finalization\` 95–100, and \`completed\` (100, event \`progress_complete\` with chunksStored, wordCount) or \`error\` / \`cancelled\` (event \`progress_error\` with \`error\`; the percentage stays where it was, it never goes back). Namespaces: \`/crawl\` (emit \`subscribe\` {progress_id}), \`/\` (\`join_progress\` {progress_id}, \`join_project\` {project_id}; payloads add \`message\`), \`/knowledge\` (\`source_added\`, \`source_updated\`), \`/logs\` (\`log_entry\`, \`log_batch\`). The acknowledgement of a subscription carries the stored progress (\`progress\`), and a subscription to a crawl that already ended also gets its final event. REST: \`GET /api/progress/{id}\`; cancel: \`POST /api/knowledge-items/stop/{id}\` or \`DELETE /api/progress/{id}\`.

**Search**: PostgreSQL full-text (english configuration, title weighted above content) always. With EMBEDDINGS_URL (OpenAI-compatible), hybrid: the full-text and vector rankings fused by reciprocal rank fusion (k = 60). Vectors live in pgvector (HNSW, cosine) where the extension exists; on PostgreSQL without it they are stored as \`real[]\` and the vector side ranks the 200 best candidates of a widened full-text query (any query word, GIN index) by cosine similarity. \`similarity_score\` is in [0, 1]. A query's embedding has EMBEDDINGS_QUERY_TIMEOUT_MS (2 s) behind a circuit breaker; when it fails search answers full-text results (\`search_mode\`) with a \`note\`. Code examples are searched the same way by \`POST /api/rag/code-examples\` (\`language\` filter). \`embedding_model\` records the model of each vector; \`POST /api/knowledge-items/backfill-embeddings\` embeds what lacks a vector of the configured model (a job followed like a crawl).

**Upload**: checked in the request, then extracted, chunked and embedded by a job (progress like a crawl's): **200** with the Document when it ends within UPLOAD_WAIT_MS (10 s), else **202** with \`progress_id\` to follow.

**Projects and tasks**: \`/api/projects\` (create in the background: 202 with \`progress_id\`, followed like a crawl; the PRD stored as a document; with LLM_URL features and tasks drafted by an OpenAI-compatible chat model), their documents and versions (\`/api/projects/{id}/docs\`, \`/versions\`: every change of \`docs\`, \`features\`, \`data\`, \`prd\` recorded, restorable), and \`/api/tasks\` (status todo/doing/review/done, \`task_order\` the position in the status column, delete archives). Events to the room \`project:{id}\` of the root namespace (\`join_project\`).

**Contextual embeddings** (CONTEXTUAL_EMBEDDINGS with LLM_URL and EMBEDDINGS_URL): each chunk is embedded with a context the chat model wrote from its page; the backfill re-embeds chunks made without it.

**MCP control**: \`/api/mcp/*\` starts, stops and watches the MCP server's container (Docker) or Deployment (Kubernetes): status running, stopped, starting, stopping, not_found or docker_unavailable (never 5xx without an engine), its logs (one replica follows the container's log; \`log_entry\` on \`/logs\`), its configuration (applied at the next start) and its tools (asked over MCP, else the catalogue).

**Events**: \`knowledge.source_added\` / \`knowledge.source_updated\` through the outbox.

**Docs**: Swagger UI at \`/api/docs\` and \`/docs\`, ReDoc at \`/redoc\`, all served locally (no CDN).`;

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const knowledgeApiService: ServiceDefinition<KnowledgeApiConfig> = {
  name: 'knowledge-api',
  port: 3003,
  schema: 'knowledge',
  config: KnowledgeApiConfig,
  module: (config) => KnowledgeApiModule.forRoot(config),
  errorFilter: () => new PlainErrorFilter(),
  // Socket.IO over Redis when REDIS_URL is set: events of a crawl running on one replica reach the clients of all.
  configure: (app, config) => void useRealtime(app, { redisUrl: config.REDIS_URL, key: `${config.REDIS_KEY_PREFIX}socket.io` }),
  swagger: {
    title: 'knowledge-api',
    version: '1.0.0',
    description,
    aliases: ['/docs'],
    redoc: '/redoc',
    configure: (b) => b.addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'KNOWLEDGE_API_KEY (also as `Authorization: Bearer`)' }, 'api_key'),
  },
};
