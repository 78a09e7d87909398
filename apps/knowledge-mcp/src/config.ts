import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const LIST = /^[^\s,]+(\s*,\s*[^\s,]+)*$/;

/**
 * knowledge-mcp's settings (README "Configuration"): BaseConfig's and its own, validated at start.
 * It has no data of its own: everything goes through knowledge-api's REST (KNOWLEDGE_API_URL).
 */
export class KnowledgeMcpConfig extends BaseConfig {
  /** Base URL of knowledge-api (its `/api/*` routes are called under it). */
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'KNOWLEDGE_API_URL must be an http:// or https:// base URL of knowledge-api, e.g. http://knowledge-api:3003' })
  KNOWLEDGE_API_URL = 'http://127.0.0.1:3003';

  /** The key knowledge-api requires (its KNOWLEDGE_API_KEY), sent as `X-API-Key`; unset: none sent. */
  @IsOptional()
  @IsString()
  KNOWLEDGE_API_KEY?: string;

  /** Deadline of one call to knowledge-api (a search waits for its embedder: keep it above knowledge-api's query timeout). */
  @IsInt()
  @Min(100)
  KNOWLEDGE_API_TIMEOUT_MS = 30_000;

  /** The bearer key MCP clients must send (`Authorization: Bearer <key>`); unset: open (development only). */
  @RequiredInProduction()
  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'KNOWLEDGE_MCP_API_KEY must be at least 16 characters without spaces' })
  KNOWLEDGE_MCP_API_KEY?: string;

  /**
   * Host names (port-agnostic, comma-separated) accepted in the `Host` header of MCP requests: a
   * defence against DNS rebinding. `*` accepts any (only behind a proxy that checks it).
   */
  @Matches(LIST, { message: 'MCP_ALLOWED_HOSTS must be a comma-separated list of host names, or *' })
  MCP_ALLOWED_HOSTS = 'localhost,127.0.0.1,[::1],knowledge-mcp';

  /**
   * Origins (`scheme://host[:port]`, comma-separated) accepted in the `Origin` header that browsers
   * send; requests without `Origin` (non-browser clients) are not concerned. Unset: an origin whose
   * host name is one of MCP_ALLOWED_HOSTS.
   */
  @IsOptional()
  @Matches(LIST, { message: 'MCP_ALLOWED_ORIGINS must be a comma-separated list of origins, e.g. http://localhost:5173' })
  MCP_ALLOWED_ORIGINS?: string;

  /**
   * `stateful`: Streamable HTTP sessions (`Mcp-Session-Id`), server-sent notifications on GET, DELETE
   * ends a session; sessions live in this process (one replica, or sticky routing). `stateless`: every
   * POST stands alone (JSON answers), any replica answers it; GET and DELETE answer 405.
   */
  @IsIn(['stateful', 'stateless'], { message: 'MCP_SESSION_MODE must be stateful or stateless' })
  MCP_SESSION_MODE: 'stateful' | 'stateless' = 'stateful';

  /** Which transports are served: Streamable HTTP (`/mcp`), the deprecated SSE transport (`/sse`, `/messages`), or both. */
  @IsIn(['all', 'streamable-http', 'sse'], { message: 'MCP_TRANSPORT must be all, streamable-http or sse' })
  MCP_TRANSPORT: 'all' | 'streamable-http' | 'sse' = 'all';

  /** A session (Streamable HTTP or SSE) unused this long is closed. */
  @IsInt()
  @Min(1000)
  MCP_SESSION_IDLE_MS = 30 * 60_000;

  /** Open sessions at most; a new one past it answers 503. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_SESSIONS = 1000;
}
