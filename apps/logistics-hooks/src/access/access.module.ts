import { Global, Module } from '@nestjs/common';
import { AdminJwtGuard, AdminRolesGuard } from './admin.guard';
import { AdminTokenVerifier } from './admin-token.verifier';
import { LogisticsApiKeyGuard } from './api-key.guard';
import { RevokedSessionsRepository } from './revoked-sessions.repository';
import { SessionEventsConsumer } from './session-events.consumer';
import { SessionRevocations } from './session-revocations';

/** The service's two ways in: the API key and auth-api's admin JWT (refused once auth-api revoked its session). */
@Global()
@Module({
  providers: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard, RevokedSessionsRepository, SessionEventsConsumer, SessionRevocations],
  exports: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard, SessionRevocations],
})
export class AccessModule {}
