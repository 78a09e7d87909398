import { Global, Logger, Module } from '@nestjs/common';
import { EmailApiConfig } from '../config';
import { ProjectRateLimiter } from '../rate-limit/project-rate-limiter';
import { REDIS, RedisLifecycle, redisProvider } from '../rate-limit/redis.provider';
import { MembersRepository } from './members.repository';
import { ProjectAccessGuard } from './project-access.guard';
import { ProjectsRepository } from './projects.repository';
import { SessionGuard } from './session.guard';
import { SessionService } from './session.service';
import { UsersRepository } from './users.repository';
import { createRateLimiter } from '@platform/rate-limit';
import type Redis from 'ioredis';

/**
 * Who may call what: users, projects and their keys, memberships, sessions, the per-project rate
 * limit and the guards built on them. Global, so that every feature module can declare
 * `@ProjectAccess(...)` / `@UserSession()` on its controllers.
 */
@Global()
@Module({
  providers: [
    UsersRepository,
    ProjectsRepository,
    MembersRepository,
    SessionService,
    SessionGuard,
    ProjectAccessGuard,
    redisProvider,
    RedisLifecycle,
    {
      provide: ProjectRateLimiter,
      inject: [EmailApiConfig, REDIS],
      // Redis (shared by replicas) when REDIS_URL is set — in memory while Redis fails — else in memory;
      // keys `<prefix>rl:<projectId>`.
      useFactory: (config: EmailApiConfig, redis: Redis | null): ProjectRateLimiter => {
        const logger = new Logger('RateLimit');
        const limiter = createRateLimiter({
          redis,
          keyPrefix: `${config.REDIS_KEY_PREFIX}rl:`,
          onFallback: (err) => logger.warn(`requests counted in this process while Redis fails: ${err.message}`),
        });
        return new ProjectRateLimiter(limiter, config.EMAIL_RATE_LIMIT_PER_MINUTE);
      },
    },
  ],
  exports: [UsersRepository, ProjectsRepository, MembersRepository, SessionService, SessionGuard, ProjectAccessGuard, ProjectRateLimiter, REDIS],
})
export class AccessModule {}
