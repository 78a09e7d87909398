import { Global, Module } from '@nestjs/common';
import { AdminJwtGuard, AdminRolesGuard } from './admin.guard';
import { AdminTokenVerifier } from './admin-token.verifier';
import { LogisticsApiKeyGuard } from './api-key.guard';

/** The service's two ways in: the API key and auth-api's admin JWT. */
@Global()
@Module({
  providers: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard],
  exports: [LogisticsApiKeyGuard, AdminTokenVerifier, AdminJwtGuard, AdminRolesGuard],
})
export class AccessModule {}
