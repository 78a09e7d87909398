import { Module } from '@nestjs/common';
import { RefreshTokensRepository } from './refresh-tokens.repository';

/** Sessions are refresh-token families: auth rotates them, user management revokes them. */
@Module({ providers: [RefreshTokensRepository], exports: [RefreshTokensRepository] })
export class SessionsModule {}
