import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { Type } from 'class-transformer';
import { Equals, IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

/**
 * automation-api's variables (README "Configuration"). The IG_* variables and AUTOMATION_API_KEY
 * describe the first account, created or updated at every start.
 */
export class AutomationConfig extends BaseConfig {
  /** Key of the first account (stored hashed). */
  @RequiredInProduction()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'AUTOMATION_API_KEY must be at least 16 characters without spaces' })
  AUTOMATION_API_KEY?: string;

  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'IG_GRAPH_URL must be an http(s) URL such as https://graph.instagram.com/v23.0' })
  IG_GRAPH_URL = 'https://graph.instagram.com/v23.0';

  @IsOptional()
  @Matches(/^\d+$/, { message: 'IG_USER_ID must be the numeric id of the professional account' })
  IG_USER_ID?: string;

  @RequiredInProduction()
  @IsString()
  IG_ACCESS_TOKEN?: string;

  @RequiredInProduction()
  @IsString()
  IG_APP_SECRET?: string;

  @RequiredInProduction()
  @IsString()
  IG_VERIFY_TOKEN?: string;

  /** The email-api project key that receives captured emails. */
  @IsOptional()
  @IsString()
  EMAIL_PUBLIC_KEY?: string;

  /** Public origin used in click-tracking links. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(:\d+)?(\/\S*)?$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;

  /** Timeout of one call to the platform. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(120_000)
  GRAPH_TIMEOUT_MS = 10_000;

  /** Concurrent calls per account. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  GRAPH_CONCURRENCY = 4;

  /** Calls per account and hour before calls queue. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GRAPH_CALLS_PER_HOUR = 4_800;

  /** Private replies per account and hour (the platform allows 750). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(750)
  PRIVATE_REPLIES_PER_HOUR = 750;

  /** Pacing: least time between two private replies of one account, all replicas together (plus the jitter). 0 with a jitter of 0 = no pacing. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(600_000)
  PRIVATE_REPLY_SPACING_MS = 1_000;

  /** Pacing: a random 0…this many ms added to each gap between private replies and to each deferral, so sends never come in lockstep. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(600_000)
  PRIVATE_REPLY_JITTER_MS = 2_000;

  /** Stateful MCP sessions (`/mcp/session`): minutes without a request before a session is closed. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1440)
  MCP_SESSION_IDLE_MINUTES = 30;

  /** Stateful MCP sessions held per process; at the limit the least recently used one is closed. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_SESSIONS = 1_000;

  /** Longest wait of a request handler for a throttled account before answering 502. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  GRAPH_MAX_WAIT_MS = 5_000;

  /** How often the next_post scheduler looks for new reels (at most a minute: attach within 2 minutes). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(60_000)
  AUTOMATION_SCHEDULER_INTERVAL_MS = 30_000;

  /** How often the engine polls its work queue besides being woken by the webhook receiver. */
  @Type(() => Number)
  @IsInt()
  @Min(20)
  @Max(60_000)
  AUTOMATION_POLL_MS = 1_000;

  /** Lease of one claimed work item (renewed before every send); a crashed worker's items come back after it. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3_600)
  AUTOMATION_LEASE_SECONDS = 120;

  /** First retry delay of a failed work item or customer webhook (doubles per attempt, capped at one hour). */
  @Type(() => Number)
  @IsInt()
  @Min(10)
  AUTOMATION_RETRY_BASE_MS = 5_000;

  /** Attempts of a work item or customer webhook before it is given up. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(20)
  AUTOMATION_MAX_ATTEMPTS = 8;

  // ── Publishing (scheduled reels, planned posts) ─────────────────────────────────────────────

  /** How often the publishing workers look for due reels and planned-post targets, and poll a container's status. */
  @Type(() => Number)
  @IsInt()
  @Min(20)
  @Max(60_000)
  PUBLISH_POLL_MS = 5_000;

  /** Largest uploaded (or downloaded, for YouTube) video in megabytes. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(4_096)
  VIDEO_MAX_MB = 1_024;

  /** Container status polls (every PUBLISH_POLL_MS) before a reel whose container never finishes fails. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  PUBLISH_MAX_POLLS = 360;

  /**
   * Minutes before publish_at at which a reel's container is created (the platform processes the
   * video meanwhile; the reel then waits in `ready` and goes online at publish_at). Containers expire
   * after 24 hours.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_380)
  PUBLISH_PREPARE_MINUTES = 10;

  /** YouTube Data API origin (uploads go to `<origin>/upload/youtube/v3/videos`). */
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'YOUTUBE_API_URL must be an http(s) URL such as https://www.googleapis.com' })
  YOUTUBE_API_URL = 'https://www.googleapis.com';

  /** OAuth 2.0 token endpoint that turns the refresh token into access tokens. */
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'YOUTUBE_TOKEN_URL must be an http(s) URL' })
  YOUTUBE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

  @IsOptional()
  @IsString()
  YOUTUBE_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  YOUTUBE_CLIENT_SECRET?: string;

  /** Refresh token of the YouTube channel of the AUTOMATION_API_KEY account (planned posts with a youtube target). */
  @IsOptional()
  @IsString()
  YOUTUBE_REFRESH_TOKEN?: string;

  /** Bytes per PUT of a resumable YouTube upload (a multiple of 256 KiB). */
  @Type(() => Number)
  @IsInt()
  @Min(262_144)
  YOUTUBE_CHUNK_BYTES = 8 * 1_048_576;

  // ── Token refresh ───────────────────────────────────────────────────────────────────────────

  /** Refresh the long-lived platform token when it expires within this many days (it lasts 60). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(59)
  TOKEN_REFRESH_BEFORE_DAYS = 10;

  /** How often the token scheduler looks for tokens to refresh (one replica per account and interval). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(86_400_000)
  TOKEN_REFRESH_INTERVAL_MS = 3_600_000;

  // ── Billing (plan limits per calendar month, UTC) ───────────────────────────────────────────

  @IsString()
  @Matches(/^[a-z0-9_-]{1,40}$/, { message: 'BILLING_PLAN must be a plan name of lower-case letters, digits, - or _' })
  BILLING_PLAN = 'free';

  /** Runs (automations triggered) per month; 0 = unlimited. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BILLING_RUNS_PER_MONTH = 1_000;

  /** Messages sent (DMs, private and public replies) per month; 0 = unlimited. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BILLING_MESSAGES_PER_MONTH = 3_000;

  /** Automations an account may hold; 0 = unlimited. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BILLING_AUTOMATIONS = 10;

  // ── The people behind the comments ───────────────────────────────────────────────────────────

  /** Comma-separated words that, as a whole direct message, end all automation for the person. */
  @IsString()
  AUTOMATION_STOP_KEYWORDS = 'stop,unsubscribe';

  /** Comma-separated words that, as a whole direct message, undo a STOP. */
  @IsString()
  AUTOMATION_START_KEYWORDS = 'start';

  /**
   * Read-but-not-tapped fallback: minutes after the person read the opening DM (messaging_seen)
   * without tapping its button before the link goes out anyway. 0 = off.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1380)
  AUTOMATION_READ_FALLBACK_MINUTES = 5;

  /** Human takeover: minutes automation stays paused for a conversation after a person of the account answered in it by hand. 0 = off. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(43_200)
  AUTOMATION_TAKEOVER_MINUTES = 60;

  // ── Connecting accounts (the platform's OAuth login) and tokens at rest ─────────────────────

  /**
   * Key that encrypts platform tokens at rest (AES-256-GCM): 32 bytes as 64 hex characters or
   * base64. Unset: tokens are stored as plaintext (a warning at start). Tokens stored before it was
   * set are encrypted at the next start.
   */
  @IsOptional()
  @Matches(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, { message: 'AUTOMATION_TOKEN_KEY must be 32 bytes: 64 hex characters or base64' })
  AUTOMATION_TOKEN_KEY?: string;

  /** The app's id on the platform (OAuth client_id of the login flow); unset: connecting through the login is off. */
  @IsOptional()
  @Matches(/^\S+$/, { message: 'IG_APP_ID must be the app id without spaces' })
  IG_APP_ID?: string;

  /** The platform's authorization window (Business Login). */
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'IG_OAUTH_AUTHORIZE_URL must be an http(s) URL' })
  IG_OAUTH_AUTHORIZE_URL = 'https://www.instagram.com/oauth/authorize';

  /** The endpoint that exchanges an authorization code for a short-lived token. */
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'IG_OAUTH_TOKEN_URL must be an http(s) URL' })
  IG_OAUTH_TOKEN_URL = 'https://api.instagram.com/oauth/access_token';

  /** Redirect URI registered with the app; default `<PUBLIC_BASE_URL>/connect/instagram/callback`. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'IG_OAUTH_REDIRECT_URL must be an http(s) URL' })
  IG_OAUTH_REDIRECT_URL?: string;

  /** Permissions asked for in the login (comma-separated). */
  @IsString()
  @Matches(/^[a-z_]+(,[a-z_]+)*$/, { message: 'IG_OAUTH_SCOPES must be comma-separated permission names' })
  IG_OAUTH_SCOPES = 'instagram_business_basic,instagram_business_manage_messages,instagram_business_manage_comments,instagram_business_content_publish';

  /** How long a connect link printed by `create-account` / `connect-account` can be used. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(720)
  CONNECT_LINK_HOURS = 24;

  // ── No comment missed: the comment poller ───────────────────────────────────────────────────

  /** How often the comment poller looks for comments whose webhook never arrived (one replica per account and interval). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(3_600_000)
  COMMENT_POLL_INTERVAL_MS = 180_000;

  /** Platform requests one pass may make per account. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  COMMENT_POLL_MAX_REQUESTS = 8;

  /** A comment younger than this is left to its webhook (looked at by a later pass). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3_600)
  COMMENT_POLL_GRACE_SECONDS = 60;

  /** The newest posts whose comments the poller looks at. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  COMMENT_POLL_POSTS = 10;

  /** Comments older than this are never recovered (below the 7 days the work queue remembers comments). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(144)
  COMMENT_POLL_LOOKBACK_HOURS = 48;

  /**
   * Start-date watermark given to accounts the poller sees for the first time (ISO 8601); default the
   * time of that first pass. Comments older than an account's watermark are never recovered.
   */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/, { message: 'COMMENT_POLL_START must be an ISO 8601 date or time with zone' })
  COMMENT_POLL_START?: string;

  // ── Webhook subscription health ─────────────────────────────────────────────────────────────

  /** How often each account's webhook subscription is checked (and restored when it vanished). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(86_400_000)
  SUBSCRIPTION_CHECK_INTERVAL_MS = 900_000;

  // ── Outbound permissions: one per purpose (common/outbound-policy.ts) ──────────────────────

  /**
   * Tests and local development only: customer webhooks (automations' `webhook_url`) may go to
   * private/loopback addresses and plain http. Refused when NODE_ENV=production.
   */
  @IsBoolean()
  @ValidateIf((c: AutomationConfig) => c.NODE_ENV === 'production')
  @Equals(false, { message: 'AUTOMATION_WEBHOOK_ALLOW_PRIVATE must not be true in production' })
  AUTOMATION_WEBHOOK_ALLOW_PRIVATE = false;

  /**
   * Tests and local development only: a planned post's `source.video_url` (downloaded for its
   * YouTube target) may be on a private/loopback address and plain http. Refused when NODE_ENV=production.
   */
  @IsBoolean()
  @ValidateIf((c: AutomationConfig) => c.NODE_ENV === 'production')
  @Equals(false, { message: 'AUTOMATION_VIDEO_URL_ALLOW_PRIVATE must not be true in production' })
  AUTOMATION_VIDEO_URL_ALLOW_PRIVATE = false;
}
