import 'reflect-metadata';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The variables every service reads (ARCHITECTURE.md "Configuration"). An app extends it with its own,
 * each with class-validator decorators; `loadConfig` fills and validates it from the environment.
 */
export class BaseConfig {
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  /** Defaults to `ServiceDefinition.port`. */
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @IsString()
  @IsNotEmpty()
  DATA_DIR = './.data';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /** Schema override (tests); defaults to `ServiceDefinition.schema`. */
  @IsOptional()
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA?: string;

  @IsOptional()
  @Matches(/^amqps?:\/\/\S+$/, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL?: string;

  /** RabbitMQ topic exchange of the platform's events (tests use a throwaway one). */
  @Matches(/^[\w.:-]{1,200}$/, { message: 'EVENTS_EXCHANGE must be an exchange name (letters, digits, ".", ":", "-", "_")' })
  EVENTS_EXCHANGE = 'platform.events';

  /** Dead-letter exchange (routing key = consumer). */
  @Matches(/^[\w.:-]{1,200}$/, { message: 'EVENTS_DLX must be an exchange name (letters, digits, ".", ":", "-", "_")' })
  EVENTS_DLX = 'platform.dlx';

  /** Prefix of the queue names of this service's declared consumers (tests isolate their queues with it). */
  @IsOptional()
  @Matches(/^[\w.:-]{0,100}$/, { message: 'EVENTS_QUEUE_PREFIX may hold letters, digits, ".", ":", "-" and "_"' })
  EVENTS_QUEUE_PREFIX?: string;

  /** Messages a consumer handles at once (AMQP prefetch); a consumer may set its own. */
  @IsInt()
  @Min(1)
  @Max(65_535)
  EVENTS_PREFETCH = 10;

  /** Redeliveries of a failed event before it is dead-lettered to `<consumer>.dlq`; a consumer may set its own. */
  @IsInt()
  @Min(0)
  @Max(100)
  EVENTS_MAX_RETRIES = 5;

  /** First delay before reconnecting to RabbitMQ (and before retrying a consumer the broker refused); doubles per attempt. */
  @IsInt()
  @Min(1)
  @Max(600_000)
  EVENTS_RECONNECT_DELAY_MS = 250;

  /** Cap of that delay. */
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  EVENTS_MAX_RECONNECT_DELAY_MS = 30_000;

  /**
   * Declare the queues of the durable consumers of each event (the messaging lib's EVENT_CONSUMERS)
   * before publishing it, so an event published before its consumer first started waits for it.
   * Default true; false where a consumer's app is not deployed (its queue would only fill up).
   */
  @IsOptional()
  @IsBoolean()
  EVENTS_DECLARE_CONSUMERS?: boolean;

  /** How often the outbox relay looks for unsent events when no commit woke it. */
  @IsInt()
  @Min(10)
  @Max(600_000)
  EVENTS_OUTBOX_POLL_MS = 1000;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /**
   * Prefix of every Redis key of this service (rate-limit counters, the Socket.IO adapter's channels,
   * queues); tests and replicas of another deployment on the same Redis use their own. Defaults to
   * `<ServiceDefinition.name>:`.
   */
  @Matches(/^[A-Za-z0-9_:.-]+$/, { message: 'REDIS_KEY_PREFIX may only hold letters, digits and _ : . -' })
  REDIS_KEY_PREFIX: string;

  /** The request line and headers of a request must arrive within this (slowloris); else 408 and the connection closed. Default 20000. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600_000)
  HTTP_HEADERS_TIMEOUT_MS?: number;

  /** The whole request, body included, must arrive within this; 0 = no limit. Default 300000 (the proxies: 0, their engine times exchanges). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  HTTP_REQUEST_TIMEOUT_MS?: number;

  /** An idle keep-alive connection is closed after this. Default 5000. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;

  /** How often the two timeouts above are checked. Default 1000. */
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(60_000)
  HTTP_TIMEOUT_CHECK_INTERVAL_MS?: number;

  /** Run pending migrations at start; default: yes, except NODE_ENV=production with DATABASE_URL (the migration Job runs them). */
  @IsOptional()
  @IsBoolean()
  DB_MIGRATE_ON_START?: boolean;

  /** Connections per service (pg pool max); default 10. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  DB_POOL_MAX?: number;

  /** Waiting for (and opening) a connection fails after this; default 10000. */
  @IsOptional()
  @IsInt()
  @Min(0)
  DB_CONNECT_TIMEOUT_MS?: number;

  /** Server-side statement_timeout of each connection; default 30000, 0 = none. */
  @IsOptional()
  @IsInt()
  @Min(0)
  DB_STATEMENT_TIMEOUT_MS?: number;

  /** Idle connections are closed after this; default 30000. */
  @IsOptional()
  @IsInt()
  @Min(0)
  DB_IDLE_TIMEOUT_MS?: number;
}
