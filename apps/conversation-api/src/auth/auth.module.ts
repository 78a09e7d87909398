import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { AccessTokens } from './access-tokens';
import { AccessGuard } from './access.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { PasswordResetsRepository } from './password-resets.repository';

@Module({
  imports: [UsersModule, SessionsModule, MailModule],
  controllers: [AuthController],
  providers: [AccessTokens, AuthService, PasswordResetsRepository, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [AuthService, AccessTokens],
})
export class AuthModule {}
