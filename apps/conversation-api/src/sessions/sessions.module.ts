import { Module } from '@nestjs/common';
import { RefreshTokensRepository } from './refresh-tokens.repository';
import { SessionsService } from './sessions.service';

/** Sessions are refresh-token families: auth rotates them, user management revokes them. */
@Module({ providers: [RefreshTokensRepository, SessionsService], exports: [SessionsService] })
export class SessionsModule {}
