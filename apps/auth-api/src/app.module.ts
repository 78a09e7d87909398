import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import { RateLimitModule } from '@platform/rate-limit';
import { FirstUsersService } from './bootstrap/first-users.service';
import type { AuthApiConfig } from './config';
import { FiscalUser } from './fiscal/entities/fiscal-user.entity';
import { FiscalModule } from './fiscal/fiscal.module';
import { KeysModule, loadSigningKeys } from './keys/keys.module';
import { LogisticsUser } from './logistics/entities/logistics-user.entity';
import { RefreshToken } from './logistics/entities/refresh-token.entity';
import { LogisticsModule } from './logistics/logistics.module';
import { CreateAuthTables1763770000000 } from './migrations/1763770000000-CreateAuthTables';
import { CreateOutboxTables1763770100000 } from './migrations/1763770100000-CreateOutboxTables';
import { LoginRateLimitModule } from './rate-limit/login-rate-limit.module';
import { TokensModule } from './tokens/tokens.module';

export const AUTH_ENTITIES = [FiscalUser, LogisticsUser, RefreshToken];
export const AUTH_MIGRATIONS = [CreateAuthTables1763770000000, CreateOutboxTables1763770100000];

@Module({})
export class AuthApiModule {
  static forRoot(config: AuthApiConfig): DynamicModule {
    return {
      module: AuthApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: [...AUTH_ENTITIES, ...messagingEntities], migrations: AUTH_MIGRATIONS }),
        // Events (auth.session_revoked, auth.user_created) go through the transactional outbox; EVENTS_* settings.
        MessagingModule.forRoot({ outbox: true }),
        KeysModule.forRoot(loadSigningKeys(config)),
        TokensModule,
        // Failed logins counted per client IP and account: in Redis when REDIS_URL is set (shared by every replica).
        RateLimitModule.forRoot({ keyPrefix: `${config.REDIS_KEY_PREFIX}login:` }),
        LoginRateLimitModule,
        FiscalModule,
        LogisticsModule,
      ],
      providers: [FirstUsersService],
    };
  }
}
