import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/** Queries slower than this are logged as warnings (without their parameters). */
export const SLOW_QUERY_MS = 2_000;

const short = (sql: string) => (sql.length > 500 ? `${sql.slice(0, 500)}…` : sql).replace(/\s+/g, ' ');

/**
 * Routes TypeORM's own messages (migrations, slow queries) through Nest's Logger, hence the app's
 * pino logger with its service field, instead of console.log. Query parameters are never logged.
 */
export class NestTypeOrmLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');

  logQuery(): void {}

  logQueryError(error: string | Error, query: string): void {
    this.logger.debug(`query failed: ${error instanceof Error ? error.message : error} — ${short(query)}`);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${short(query)}`);
  }

  logSchemaBuild(message: string): void {
    this.logger.debug(message);
  }

  logMigration(message: string): void {
    if (/failed/i.test(message)) this.logger.error(message);
    else this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.debug(String(message));
  }
}
