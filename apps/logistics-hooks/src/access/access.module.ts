import { Global, Module } from '@nestjs/common';
import { AdminJwtGuard, AdminRolesGuard } from './admin.guard';
import { AdminTokenVerifier } from './admin-token.verifier';
import { LogisticsApiKeyGuard } from './api-key.guard';
import { RevokedSessionsRepository } from './revoked-sessions.repository';
import { SessionEventsConsumer } from './session-events.consumer';

/** The service's two ways in: the API key and auth-api's admin JWT (refused once auth-api revoked its session). */
@Global()
@Module({
  providers: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard, RevokedSessionsRepository, SessionEventsConsumer],
  exports: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard],
})
export class AccessModule {}
