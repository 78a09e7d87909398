import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';

/** Access tokens live 15 minutes, refresh tokens 7 days (the spec's token rules). */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
/** A password-reset token is good for one hour and one use. */
export const PASSWORD_RESET_TTL_SECONDS = 60 * 60;

/**
 * conversation-api's settings: BaseConfig's (PORT, DATABASE_URL, AMQP_URL, REDIS_URL, DATA_DIR, LOG_LEVEL, …)
 * and its own. With NODE_ENV=production exactly two secrets are required: CONVERSATION_JWT_SECRET and
 * CONVERSATION_ENCRYPTION_KEY; everything else has a working default.
 */
export class ConversationApiConfig extends BaseConfig {
  /**
   * HMAC key (HS256) of the access tokens, at least 32 characters. Outside production, when unset, a
   * random one is generated once and kept in `${DATA_DIR}/conversation-api/jwt-secret`.
   */
  @RequiredInProduction()
  @IsString()
  @MinLength(32, { message: 'CONVERSATION_JWT_SECRET must have at least 32 characters' })
  CONVERSATION_JWT_SECRET?: string;

  /**
   * AES-256-GCM key of channel credentials at rest: 64 hex characters (32 bytes). Outside production,
   * when unset, one is generated once and kept in `${DATA_DIR}/conversation-api/encryption-key`.
   */
  @RequiredInProduction()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'CONVERSATION_ENCRYPTION_KEY must be 64 hexadecimal characters (32 bytes)' })
  CONVERSATION_ENCRYPTION_KEY?: string;

  /** The first administrator, created at start when missing (with CONVERSATION_ADMIN_PASSWORD). */
  @IsOptional()
  @IsEmail({}, { message: 'CONVERSATION_ADMIN_EMAIL must be an email address' })
  CONVERSATION_ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'CONVERSATION_ADMIN_PASSWORD must have at least 8 characters' })
  CONVERSATION_ADMIN_PASSWORD?: string;

  /** Name of the account the first administrator opens. */
  @IsString()
  @IsNotEmpty()
  CONVERSATION_ACCOUNT_NAME = 'Default account';

  /** Outgoing mail (password reset): `smtp://user:pass@host:port` or `smtps://…`. Unset: mails are stored and reported unsent. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsEmail({}, { message: 'CONVERSATION_MAIL_FROM must be an email address' })
  CONVERSATION_MAIL_FROM = 'no-reply@conversation.localhost';

  /** Where the password-reset link points; the token is appended as `?token=`. */
  @Matches(/^https?:\/\/\S+$/, { message: 'CONVERSATION_RESET_URL must be an http(s) URL' })
  CONVERSATION_RESET_URL = 'http://localhost:3000/conversation/reset-password';

  /** WhatsApp Cloud API base URL, version included (tests point it at a fake provider). */
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'WHATSAPP_API_URL must be an http(s) URL' })
  WHATSAPP_API_URL = 'https://graph.facebook.com/v21.0';

  /** Time limit of each call to the messaging provider. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  WHATSAPP_TIMEOUT_MS = 10_000;

  /** Attempts at sending an agent reply before it is marked `failed` (errors the provider calls permanent fail at once). */
  @IsInt()
  @Min(1)
  @Max(50)
  CONVERSATION_DELIVERY_MAX_ATTEMPTS = 5;

  /** Delay before the second attempt; each later one waits twice as long as the one before (at most an hour). */
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  CONVERSATION_DELIVERY_RETRY_MS = 5_000;

  /** Requests per minute per client on every API route (the spec: 100). */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  CONVERSATION_RATE_LIMIT_PER_MINUTE = 100;

  /** Webhook deliveries per minute per account (tenant), over all its channels. */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE = 6000;

  /** How often each email channel's mailbox is polled over IMAP (one replica per mailbox at a time). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  CONVERSATION_IMAP_POLL_SECONDS = 60;

  /** Largest incoming mail downloaded (bytes); a larger one is stored as a message saying so, without its body. */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  CONVERSATION_EMAIL_MAX_BYTES = 25 * 1024 * 1024;

  /**
   * Deprecated: the prefix of this service's Redis keys is BaseConfig's REDIS_KEY_PREFIX (default
   * `conversation-api:`). Still read: used when REDIS_KEY_PREFIX is not set, with a warning at start
   * (see redis-key-prefix.ts).
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_:.-]+$/, { message: 'CONVERSATION_REDIS_KEY_PREFIX may only hold letters, digits and _ : . - (and is deprecated: set REDIS_KEY_PREFIX)' })
  CONVERSATION_REDIS_KEY_PREFIX?: string;
}
