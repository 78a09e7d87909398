import { Module } from '@nestjs/common';
import { EmailsModule } from '../emails/emails.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ProjectsModule } from '../projects/projects.module';
import { AuthController } from './auth.controller';
import { AuthRateLimiter } from './auth-rate-limiter';
import { AuthService } from './auth.service';
import { UsersController } from './users.controller';

/** Accounts and sessions (/auth/*) and the user's projects (/users/@me/*). */
@Module({
  imports: [EmailsModule, ProjectsModule, OAuthModule],
  controllers: [AuthController, UsersController],
  providers: [AuthService, AuthRateLimiter],
})
export class UsersModule {}
