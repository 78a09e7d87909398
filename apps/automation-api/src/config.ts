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

  /**
   * Tests and local development only: customer webhooks may go to private/loopback addresses and
   * plain http. Refused when NODE_ENV=production.
   */
  @IsBoolean()
  @ValidateIf((c: AutomationConfig) => c.NODE_ENV === 'production')
  @Equals(false, { message: 'AUTOMATION_WEBHOOK_ALLOW_PRIVATE must not be true in production' })
  AUTOMATION_WEBHOOK_ALLOW_PRIVATE = false;
}
