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

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

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
