import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';

const HTTP_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const PATH_WORD = /^[a-z0-9][a-z0-9_-]*$/i;

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
}
