import { Global, Module } from '@nestjs/common';
import { RateLimiter } from '@platform/rate-limit';
import { EmailApiConfig } from '../config';
import { ProjectRateLimiter } from '../rate-limit/project-rate-limiter';
import { AccountsService } from './accounts.service';
import { MembersRepository } from './members.repository';
import { ProjectAccessGuard } from './project-access.guard';
import { ProjectDirectory } from './project-directory.service';
import { ProjectsRepository } from './projects.repository';
import { SessionGuard } from './session.guard';
import { SessionService } from './session.service';
import { UsersRepository } from './users.repository';

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
    AccountsService,
    ProjectDirectory,
    SessionService,
    SessionGuard,
    ProjectAccessGuard,
    {
      provide: ProjectRateLimiter,
      // On the app's RateLimiter (RateLimitModule in the root module): keys `<prefix>rl:<projectId>`.
      inject: [RateLimiter, EmailApiConfig],
      useFactory: (limiter: RateLimiter, config: EmailApiConfig) => new ProjectRateLimiter(limiter, config.EMAIL_RATE_LIMIT_PER_MINUTE),
    },
  ],
  exports: [AccountsService, ProjectDirectory, SessionService, SessionGuard, ProjectAccessGuard, ProjectRateLimiter],
})
export class AccessModule {}
