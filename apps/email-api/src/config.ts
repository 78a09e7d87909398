import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { Equals, IsBoolean, IsEmail, IsInt, IsNumber, IsNotEmpty, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';

export const SESSION_COOKIE = 'email_session';
/** Dashboard session lifetime (the spec leaves it open; the anchors' platform uses 168 hours). */
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

const HTTP_URL = /^https?:\/\/[^\s/]+(\/\S*)?$/;
const githubSet = (c: EmailApiConfig) => c.GITHUB_CLIENT_ID !== undefined || c.GITHUB_CLIENT_SECRET !== undefined;
const googleSet = (c: EmailApiConfig) => c.GOOGLE_CLIENT_ID !== undefined || c.GOOGLE_CLIENT_SECRET !== undefined;
const stripeSet = (c: EmailApiConfig) => c.STRIPE_SECRET_KEY !== undefined || c.STRIPE_WEBHOOK_SECRET !== undefined || c.STRIPE_PRICE_ID !== undefined;
const s3KeysSet = (c: EmailApiConfig) => c.S3_ACCESS_KEY_ID !== undefined || c.S3_SECRET_ACCESS_KEY !== undefined;
const s3Set = (c: EmailApiConfig) => c.S3_BUCKET !== undefined || c.S3_ENDPOINT !== undefined || c.S3_PUBLIC_URL !== undefined || s3KeysSet(c);

export class EmailApiConfig extends BaseConfig {
  /**
   * HMAC secret of the dashboard session JWT and of unsubscribe links (at least 32 characters).
   * Required in production; in development and tests a random one is generated once and kept in
   * `${DATA_DIR}/email-api/jwt-secret`.
   */
  @RequiredInProduction()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must have at least 32 characters' })
  JWT_SECRET?: string;

  /** true: POST /auth/signup answers 403 SIGNUPS_DISABLED. */
  @IsBoolean()
  DISABLE_SIGNUPS = false;

  /**
   * Outgoing mail server, `smtp://user:pass@host:port` or `smtps://…`. Unset: mail is stored in the
   * activity feed with status `STORED` and not sent (the send response says so).
   */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** Sender of the platform's own mail (verification, password reset) and the default `from` of /v1/send. */
  @IsEmail({}, { message: 'EMAIL_FROM must be an email address' })
  EMAIL_FROM = 'no-reply@email.localhost';

  /** Comma-separated DNS servers for /v1/verify MX lookups (`1.1.1.1`, `127.0.0.1:5353`); unset: the system resolver. */
  @IsOptional()
  @Matches(/^[0-9a-fA-F.:[\]]+(\s*,\s*[0-9a-fA-F.:[\]]+)*$/, { message: 'DNS_SERVERS must be a comma-separated list of IP[:port] addresses' })
  DNS_SERVERS?: string;

  /** DNS lookups of /v1/verify give up after this long. */
  @IsInt()
  @Min(100)
  @Max(30_000)
  DNS_TIMEOUT_MS = 3000;

  /**
   * Public origin of this service as recipients reach it (behind the gateway include its prefix,
   * e.g. `https://api.example.com/email`): unsubscribe links and verification links are built on it.
   */
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL' })
  PUBLIC_BASE_URL = 'http://localhost:3002';

  /** API requests per minute per project (the spec: 1000). */
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  EMAIL_RATE_LIMIT_PER_MINUTE = 1000;

  /** How often the send and job workers look for due rows when nothing woke them. */
  @IsInt()
  @Min(20)
  @Max(60_000)
  WORKER_POLL_MS = 1000;

  /** Send attempts of one email before it is marked FAILED. */
  @IsInt()
  @Min(1)
  @Max(20)
  SEND_MAX_ATTEMPTS = 5;

  /**
   * Secret of the sending domains' DKIM private keys at rest (AES-256-GCM with the SHA-256 of this
   * value as key; at least 32 characters). Required in production; in development and tests a random
   * one is generated once and kept in `${DATA_DIR}/email-api/dkim-key-secret`. Changing it makes the
   * stored keys unreadable (their domains must be added again).
   */
  @RequiredInProduction()
  @IsString()
  @MinLength(32, { message: 'DKIM_KEY_SECRET must have at least 32 characters' })
  DKIM_KEY_SECRET?: string;

  /** Host that domains include in their SPF record (`v=spf1 include:<this> ~all`): the SPF record of the sending infrastructure. */
  @Matches(/^[a-z0-9_]([a-z0-9_-]*[a-z0-9])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9])?)+$/, { message: 'SPF_INCLUDE must be a host name' })
  SPF_INCLUDE = '_spf.email.localhost';

  /** Mail exchanger that receives bounces for the return-path host `bounce.<domain>` of every sending domain. */
  @Matches(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, { message: 'RETURN_PATH_MX must be a host name' })
  RETURN_PATH_MX = 'feedback.email.localhost';

  /** Seconds between two background DNS checks of a pending domain (the spec: every 5 minutes). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  DOMAIN_CHECK_SECONDS = 300;

  /** Mails per second per project, every kind (the default of the project's send rate; every replica shares it). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  EMAIL_SEND_RATE = 14;

  /** The highest send rate a project may set for itself (PUT /projects/:id/sending). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  EMAIL_SEND_RATE_MAX = 100;

  /** Soft bounces of one address (within 30 days) after which it is suppressed as a hard bounce. */
  @IsInt()
  @Min(1)
  @Max(100)
  SOFT_BOUNCE_LIMIT = 3;

  /** Sends in the last 30 days a project needs before its bounce and complaint rates can pause it. */
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  PAUSE_MIN_SENDS = 100;

  /** Hard bounces per send (last 30 days) at or above which a project is paused for review. */
  @IsNumber()
  @Min(0.001)
  @Max(1)
  PAUSE_BOUNCE_RATE = 0.1;

  /** Complaints per send (last 30 days) at or above which a project is paused for review. */
  @IsNumber()
  @Min(0.0001)
  @Max(1)
  PAUSE_COMPLAINT_RATE = 0.005;

  /** Clicks within this many seconds of the mail's sending are a link scanner's (flagged `scanner`). */
  @IsInt()
  @Min(0)
  @Max(3600)
  SCANNER_WINDOW_SECONDS = 10;

  /** Opens within this many seconds of the mail's sending are a prefetcher's (flagged `privacy_proxy`). */
  @IsInt()
  @Min(0)
  @Max(3600)
  PREFETCH_WINDOW_SECONDS = 5;

  /** Emails one send worker claims per round (sent over SEND_CONCURRENCY lanes, one mail in flight each). */
  @IsInt()
  @Min(1)
  @Max(1000)
  SEND_BATCH = 50;

  /** Seconds a send worker holds the emails it claimed; a crashed worker's emails are sent by another after this. */
  @IsInt()
  @Min(1)
  @Max(3600)
  SEND_LEASE_SECONDS = 120;

  /** Pooled SMTP connections of one replica. */
  @IsInt()
  @Min(1)
  @Max(100)
  SMTP_POOL_SIZE = 5;

  /** Mails one replica has in flight at once (being built and signed, handed to SMTP, or recorded). */
  @IsInt()
  @Min(1)
  @Max(1000)
  SEND_CONCURRENCY = 20;

  /** GitHub OAuth app of the "Log in with GitHub" flow; both or neither (unset: the provider is off). */
  @ValidateIf(githubSet)
  @IsString()
  @IsNotEmpty({ message: 'GITHUB_CLIENT_ID is required when GITHUB_CLIENT_SECRET is set' })
  GITHUB_CLIENT_ID?: string;

  @ValidateIf(githubSet)
  @IsString()
  @IsNotEmpty({ message: 'GITHUB_CLIENT_SECRET is required when GITHUB_CLIENT_ID is set' })
  GITHUB_CLIENT_SECRET?: string;

  /** Google OAuth client of the "Log in with Google" flow; both or neither (unset: the provider is off). */
  @ValidateIf(googleSet)
  @IsString()
  @IsNotEmpty({ message: 'GOOGLE_CLIENT_ID is required when GOOGLE_CLIENT_SECRET is set' })
  GOOGLE_CLIENT_ID?: string;

  @ValidateIf(googleSet)
  @IsString()
  @IsNotEmpty({ message: 'GOOGLE_CLIENT_SECRET is required when GOOGLE_CLIENT_ID is set' })
  GOOGLE_CLIENT_SECRET?: string;

  /** GitHub's web origin (authorize and token endpoints under `/login/oauth/`); tests point it at a fake. */
  @Matches(HTTP_URL, { message: 'GITHUB_OAUTH_URL must be an http(s) URL' })
  GITHUB_OAUTH_URL = 'https://github.com';

  /** GitHub's REST API (`/user`, `/user/emails`). */
  @Matches(HTTP_URL, { message: 'GITHUB_API_URL must be an http(s) URL' })
  GITHUB_API_URL = 'https://api.github.com';

  /** Google's accounts origin (authorize endpoint `/o/oauth2/v2/auth`). */
  @Matches(HTTP_URL, { message: 'GOOGLE_OAUTH_URL must be an http(s) URL' })
  GOOGLE_OAUTH_URL = 'https://accounts.google.com';

  /** Google's token endpoint. */
  @Matches(HTTP_URL, { message: 'GOOGLE_TOKEN_URL must be an http(s) URL' })
  GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

  /** Google's OpenID Connect userinfo endpoint. */
  @Matches(HTTP_URL, { message: 'GOOGLE_USERINFO_URL must be an http(s) URL' })
  GOOGLE_USERINFO_URL = 'https://openidconnect.googleapis.com/v1/userinfo';

  /** Where an OAuth login lands once the session cookie is set; unset: PUBLIC_BASE_URL. */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'DASHBOARD_URL must be an http(s) URL' })
  DASHBOARD_URL?: string;

  /** Time limit of each call to an OAuth provider (token exchange, profile reads). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  OAUTH_TIMEOUT_MS = 10_000;

  /** Per client IP and window: failed logins, signups, password-reset requests (each route its own counter). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AUTH_LIMIT_PER_IP = 30;

  /** Per account and window: failed logins from one IP, signups of one email, reset requests for one email. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AUTH_LIMIT_PER_ACCOUNT = 5;

  /** The window of the AUTH_LIMIT_* counters, in seconds. */
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUTH_LIMIT_WINDOW_SECONDS = 900;

  /** `POST /segments/:id/compute` runs in the request up to this many contacts in the project; above it, as a queued job (202 with its jobId). */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  SEGMENT_COMPUTE_INLINE_MAX = 10_000;

  /** Seconds between two DNS checks of a verified (or degraded) domain: records that vanished make it `degraded`. */
  @IsInt()
  @Min(60)
  @Max(30 * 86_400)
  DOMAIN_RECHECK_SECONDS = 86_400;

  /**
   * Port of the inbound SMTP receiver (bounces and feedback reports to the return paths, inbound mail
   * to verified domains); 0: any free port (tests). The Service exposes it as `smtp` (see README).
   */
  @IsInt()
  @Min(0)
  @Max(65_535)
  INBOUND_SMTP_PORT = 2525;

  /** Address the inbound SMTP receiver binds to. */
  @Matches(/^[0-9a-fA-F.:]+$/, { message: 'INBOUND_SMTP_HOST must be an IP address' })
  INBOUND_SMTP_HOST = '0.0.0.0';

  /** Name the receiver gives in its greeting and EHLO answer; unset: RETURN_PATH_MX. */
  @IsOptional()
  @Matches(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, { message: 'INBOUND_SMTP_HOSTNAME must be a host name' })
  INBOUND_SMTP_HOSTNAME?: string;

  /** Largest message the receiver takes, in bytes (advertised as SIZE; larger: 552). */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  INBOUND_MAX_BYTES = 10 * 1024 * 1024;

  /**
   * SNS topics whose notifications `POST /webhooks/ses` takes (comma-separated ARNs); unset: the
   * webhook refuses every delivery (403), as a topic not configured here could be anybody's.
   */
  @IsOptional()
  @Matches(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+(\s*,\s*arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+)*$/, { message: 'SES_SNS_TOPIC_ARNS must be a comma-separated list of SNS topic ARNs' })
  SES_SNS_TOPIC_ARNS?: string;

  /**
   * Hosts (a regular expression over the whole host name) that may serve SNS signing certificates and
   * subscription confirmations; always over https. Default: Amazon SNS's regional endpoints.
   */
  @IsString()
  @MinLength(1)
  SNS_CERT_HOST_PATTERN = '^sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?$';

  /** A PEM file of extra certificate authorities trusted for the https calls to SNS (a private endpoint; tests). */
  @IsOptional()
  @IsString()
  SNS_TLS_CA_FILE?: string;

  /** Time limit of each call to SNS (certificate download, subscription confirmation). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  SNS_TIMEOUT_MS = 5000;

  /**
   * Stripe secret key (`sk_live_…`, `sk_test_…` or a restricted `rk_…` key): billing through Stripe.
   * All three STRIPE_* variables or none; unset: the billing provider routes answer 503
   * BILLING_DISABLED, GET /config says `billing: false`, the caps still work.
   */
  @ValidateIf(stripeSet)
  @IsString()
  @IsNotEmpty({ message: 'STRIPE_SECRET_KEY is required when STRIPE_WEBHOOK_SECRET or STRIPE_PRICE_ID is set' })
  STRIPE_SECRET_KEY?: string;

  /** Signing secret of the Stripe webhook endpoint `POST /webhooks/incoming/stripe` (`whsec_…`). */
  @ValidateIf(stripeSet)
  @IsString()
  @IsNotEmpty({ message: 'STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set' })
  STRIPE_WEBHOOK_SECRET?: string;

  /** The recurring Stripe price (`price_…`) of the paid plan: what POST /users/@me/projects/:id/checkout subscribes to. */
  @ValidateIf(stripeSet)
  @IsString()
  @IsNotEmpty({ message: 'STRIPE_PRICE_ID is required when STRIPE_SECRET_KEY is set' })
  STRIPE_PRICE_ID?: string;

  /** Base URL of the Stripe API (tests point it at a fake Stripe server on loopback). */
  @Matches(HTTP_URL, { message: 'STRIPE_API_BASE must be an http(s) URL' })
  STRIPE_API_BASE = 'https://api.stripe.com';

  /** Time limit of each call to the Stripe API. */
  @IsInt()
  @Min(100)
  @Max(80_000)
  STRIPE_TIMEOUT_MS = 20_000;

  /**
   * With Stripe configured, the monthly allowance of each category (workflows, campaigns,
   * transactional, inbound) of a project without a paid plan; a paid plan lifts it (the project's own
   * caps still apply). Without Stripe no plan allowance applies.
   */
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  BILLING_FREE_LIMIT = 1000;

  /**
   * Bucket of the image uploads (`POST /uploads/image`) on S3 or an S3-compatible server; unset:
   * images are files under `${DATA_DIR}/email-api/uploads` (one replica, or a volume every replica shares).
   */
  @ValidateIf(s3Set)
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens), required when other S3_* variables are set' })
  S3_BUCKET?: string;

  /** Region of the bucket (`auto` for Cloudflare R2). */
  @Matches(/^[a-z0-9-]{1,40}$/, { message: 'S3_REGION must be a region name such as us-east-1' })
  S3_REGION = 'us-east-1';

  /** Endpoint of an S3-compatible server (`http://minio:9000`); unset: AWS S3 of S3_REGION. */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'S3_ENDPOINT must be an http(s) URL' })
  S3_ENDPOINT?: string;

  /** Access key of the bucket; both or neither (neither: the AWS SDK's default chain, e.g. an IAM role). */
  @ValidateIf(s3KeysSet)
  @IsNotEmpty({ message: 'required when S3_SECRET_ACCESS_KEY is set' })
  S3_ACCESS_KEY_ID?: string;

  @ValidateIf(s3KeysSet)
  @IsNotEmpty({ message: 'required when S3_ACCESS_KEY_ID is set' })
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style requests (`<endpoint>/<bucket>/<key>`), which most S3-compatible servers need. */
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  /**
   * Public origin that serves the bucket's objects (a CDN, or the bucket's public URL): image URLs are
   * `<S3_PUBLIC_URL>/<project>/<key>`. Unset: `<PUBLIC_BASE_URL>/uploads/images/<project>/<key>`, streamed from the bucket by email-api.
   */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'S3_PUBLIC_URL must be an http(s) URL' })
  S3_PUBLIC_URL?: string;

  /**
   * Tests and local development only: the WEBHOOK steps of workflows may call private and loopback
   * addresses (cloud metadata addresses stay refused). Refused when NODE_ENV=production.
   */
  @IsBoolean()
  @ValidateIf((c: EmailApiConfig) => c.NODE_ENV === 'production')
  @Equals(false, { message: 'WORKFLOW_WEBHOOK_ALLOW_PRIVATE must not be true in production' })
  WORKFLOW_WEBHOOK_ALLOW_PRIVATE = false;

  /** Workflow executions one replica advances at once (the steps of one execution always run one after the other). */
  @IsInt()
  @Min(1)
  @Max(256)
  WORKFLOW_CONCURRENCY = 8;

  /** How long the executions a replica claimed stay with it: a replica that died mid-step has its executions taken over after this. */
  @IsInt()
  @Min(1)
  @Max(3600)
  WORKFLOW_LEASE_SECONDS = 60;
}
