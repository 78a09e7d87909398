import { Module } from '@nestjs/common';
import { OAuthClient } from './oauth-client';
import { OAuthController } from './oauth.controller';
import { OAuthRepository } from './oauth.repository';
import { OAuthService } from './oauth.service';

/** OAuth 2.0 login with GitHub and Google (/auth/oauth/*). */
@Module({
  controllers: [OAuthController],
  providers: [OAuthService, OAuthRepository, OAuthClient],
  exports: [OAuthService],
})
export class OAuthModule {}
