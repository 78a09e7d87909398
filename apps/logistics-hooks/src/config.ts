import { BaseConfig, RequiredInProduction } from '@platform/platform';
import {
  IsBoolean,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parseCarrierSettings } from './ocean-tracking/carrier-settings';

const HTTP_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const PATH_WORD = /^[a-z0-9][a-z0-9_-]*$/i;

/** OCEAN_CARRIERS parses into carrier endpoints; the message lists every problem. */
@ValidatorConstraint({ name: 'oceanCarriers' })
class OceanCarriersConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseCarrierSettings(value).errors.length === 0;
  }

  defaultMessage(args: ValidationArguments): string {
    return typeof args.value === 'string' ? parseCarrierSettings(args.value).errors.join('; ') : 'OCEAN_CARRIERS must be a JSON string';
  }
}

/**
 * logistics-hooks's settings: BaseConfig's (PORT, DATABASE_URL, AMQP_URL, REDIS_URL, DATA_DIR, LOG_LEVEL, …)
 * and its own, validated at start.
 */
export class LogisticsHooksConfig extends BaseConfig {
  /**
   * The body `api_key` of the task webhook and the key of `POST /api/errors/report`. Unset (development):
   * every key is refused with 401.
   */
  @RequiredInProduction()
  @IsString()
  @MinLength(16, { message: 'LOGISTICS_API_KEY must have at least 16 characters' })
  LOGISTICS_API_KEY?: string;

  /** `{prefix}` of the spec's paths: `POST /{prefix}-tasks`. */
  @Matches(PATH_WORD, { message: 'LOGISTICS_PREFIX must be one path word (letters, digits, - or _), e.g. ops' })
  LOGISTICS_PREFIX = 'ops';

  /** `{crm}` of the spec's paths (`POST /{crm}-data`). */
  @Matches(PATH_WORD, { message: 'LOGISTICS_CRM must be one path word (letters, digits, - or _), e.g. crm' })
  LOGISTICS_CRM = 'crm';

  /** auth-api's key set (`http://auth-api:3004/.well-known/jwks.json`): admin JWTs of the logistics realm are verified against it. */
  @RequiredInProduction()
  @IsUrl(HTTP_URL, { message: 'AUTH_JWKS_URL must be an http(s) URL such as http://127.0.0.1:3004/.well-known/jwks.json' })
  AUTH_JWKS_URL?: string;

  /** auth-api's base URL for the dashboard's login (`POST {AUTH_URL}/api/v1/logistics/auth/login`); default: the origin of AUTH_JWKS_URL. */
  @IsOptional()
  @IsUrl(HTTP_URL, { message: 'AUTH_URL must be an http(s) URL such as http://auth-api:3004' })
  AUTH_URL?: string;

  /** `iss` the admin tokens must carry (auth-api's AUTH_ISSUER). */
  @IsString()
  @IsNotEmpty()
  AUTH_ISSUER = 'auth-api';

  /**
   * An OpenAI-compatible chat-completions endpoint: the base (`http://llm:8000/v1`, `/chat/completions`
   * is appended) or the full URL. Unset: the rules classify, recaps are extractive, chat answers from rules.
   */
  @IsOptional()
  @IsUrl(HTTP_URL, { message: 'LLM_URL must be an http(s) URL such as http://127.0.0.1:8000/v1' })
  LLM_URL?: string;

  /** Model name sent to LLM_URL. */
  @IsString()
  @IsNotEmpty()
  LLM_MODEL = 'gpt-4o-mini';

  /** Bearer key for LLM_URL, when it needs one. */
  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  /** How long one model call may take before the rules stand in. */
  @IsInt()
  @Min(100)
  @Max(300_000)
  LLM_TIMEOUT_MS = 20_000;

  /** How often the background refinement of tasks by the model looks for work (it is also woken by each new task). */
  @IsInt()
  @Min(50)
  @Max(600_000)
  TASK_REFINE_POLL_MS = 5_000;

  /** The public chat's FAQ: currencies invoices are paid in, as written in its answer. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  PORTAL_CURRENCIES = 'MXN or USD';

  /** The public chat's FAQ: the import VAT (IVA) rate in percent. */
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  @Max(100)
  PORTAL_TAX_RATE_PCT = 16;

  /** The public chat's FAQ: how long customs clearance takes once the documents are complete. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  PORTAL_CLEARANCE_TIME = '1 to 3 business days';

  /** The public chat's FAQ: what a physical inspection adds. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  PORTAL_INSPECTION_TIME = '1 to 2 days';

  /** The public chat's FAQ: when the operations team answers. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  PORTAL_OFFICE_HOURS = 'Monday to Friday, 9:00 to 18:00 (Mexico City time)';

  /** Public tracking (`POST /api/track-public`): requests per minute per client IP. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  PORTAL_TRACK_LIMIT_PER_MINUTE = 30;

  /**
   * The carriers' DCSA Track & Trace endpoints, one JSON object keyed by carrier code (README,
   * "Ocean tracking"): `{"MAERSK": {"url", "version"?, "auth": {"type": "header", "header", "key"} |
   * {"type": "bearer", "token"} | {"type": "oauth2", "token_url", "client_id", "client_secret", "scope"?}}}`.
   * A carrier not listed answers 503 CARRIER_NOT_CONFIGURED.
   */
  @IsOptional()
  @Validate(OceanCarriersConstraint)
  OCEAN_CARRIERS?: string;

  /** How long a carrier's answer is served from the database before the carrier is asked again. */
  @IsInt()
  @Min(0)
  @Max(86_400)
  OCEAN_CACHE_TTL_SECONDS = 900;

  /** Timeout of one call to a carrier (each page, the OAuth2 token). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  OCEAN_TIMEOUT_MS = 10_000;

  /** Pages of events (`Next-Page`) followed at most per tracking. */
  @IsInt()
  @Min(1)
  @Max(100)
  OCEAN_MAX_PAGES = 10;

  /**
   * Lets the truck position feeds and the audit webhook reach private and loopback addresses
   * (development and tests only: in production a customer's link could reach the internal network).
   */
  @IsBoolean()
  OUTBOUND_ALLOW_PRIVATE = false;

  /** Shipments tracked at most per `/{prefix}-batch-track` call. */
  @IsInt()
  @Min(1)
  @Max(1000)
  BATCH_TRACK_MAX_SHIPMENTS = 200;

  /** Position feeds fetched at the same time. */
  @IsInt()
  @Min(1)
  @Max(200)
  BATCH_TRACK_CONCURRENCY = 32;

  /** Timeout of one position feed (connect, headers, body). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  BATCH_TRACK_TIMEOUT_MS = 5_000;

  /** A position older than this is `expired`. */
  @IsInt()
  @Min(1)
  @Max(10_080)
  BATCH_EXPIRED_AFTER_MIN = 120;

  /** An ETA later than planned by more than this is `delayed`. */
  @IsInt()
  @Min(0)
  @Max(10_080)
  BATCH_DELAY_TOLERANCE_MIN = 30;

  /** Below this speed (km/h) a truck is `stopped`. */
  @IsNumber()
  @Min(0)
  @Max(200)
  BATCH_STOPPED_BELOW_KMH = 5;

  /** SMTP server of the email reports (`smtp://user:pass@host:587`, `smtps://…`). Unset: reports can only be returned as HTML. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['smtp', 'smtps'] }, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** Senders the email report may use: comma-separated addresses or `@domain` entries. Empty: no report can be sent. */
  @IsOptional()
  @IsString()
  REPORT_FROM_ALLOWED?: string;

  /** The report's sender when the request names none (must be allowed by REPORT_FROM_ALLOWED). */
  @IsOptional()
  @IsEmail({}, { message: 'REPORT_FROM_DEFAULT must be an email address' })
  REPORT_FROM_DEFAULT?: string;

  /** CRM deal stages that count as won (comma-separated; case, spaces, - and _ ignored). */
  @IsString()
  @IsNotEmpty()
  CRM_WON_STAGES = 'closedwon,won';

  /** CRM deal stages that count as lost. */
  @IsString()
  @IsNotEmpty()
  CRM_LOST_STAGES = 'closedlost,lost';

  /** CRM lead statuses that close a lead (every other status is open). */
  @IsString()
  @IsNotEmpty()
  CRM_CLOSED_LEAD_STATUSES = 'converted,disqualified,closed,lost,unqualified';

  /** Objects accepted per CRM push. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  CRM_MAX_OBJECTS_PER_PUSH = 5_000;

  /** Largest invoice PDF accepted (bytes; the JSON body limit of the service follows it). */
  @IsInt()
  @Min(1024)
  @Max(20 * 1024 * 1024)
  INVOICE_MAX_BYTES = 10 * 1024 * 1024;

  /** How long reading one invoice PDF may take before it is rejected as unreadable. */
  @IsInt()
  @Min(500)
  @Max(300_000)
  INVOICE_PARSE_TIMEOUT_MS = 30_000;

  /** The IVA rate the TAX_IVA check expects (percent). */
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  @Max(100)
  INVOICE_TAX_RATE_PCT = 16;

  /** Arrival-notice audits scoring below this send the notification webhook. */
  @IsInt()
  @Min(0)
  @Max(101)
  AUDIT_SCORE_THRESHOLD = 70;

  /** Where low-score audit notifications are POSTed. Unset: none is sent (`notification: not_configured`). */
  @IsOptional()
  @IsUrl(HTTP_URL, { message: 'AUDIT_WEBHOOK_URL must be an http(s) URL' })
  AUDIT_WEBHOOK_URL?: string;

  /** HMAC-SHA256 key of the notifications' `X-Signature` (required with AUDIT_WEBHOOK_URL in production). */
  @ValidateIf((c: LogisticsHooksConfig) => c.AUDIT_WEBHOOK_SECRET !== undefined || (c.NODE_ENV === 'production' && !!c.AUDIT_WEBHOOK_URL))
  @IsString({ message: 'AUDIT_WEBHOOK_SECRET is required with AUDIT_WEBHOOK_URL in production' })
  @MinLength(16, { message: 'AUDIT_WEBHOOK_SECRET must have at least 16 characters' })
  AUDIT_WEBHOOK_SECRET?: string;
}
