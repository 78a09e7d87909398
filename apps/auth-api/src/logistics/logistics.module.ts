import { Module } from '@nestjs/common';
import { LogisticsAuthController } from './logistics-auth.controller';
import { LogisticsAuthService } from './logistics-auth.service';
import { LogisticsJwtGuard } from './logistics-jwt.guard';
import { LogisticsUsersController } from './logistics-users.controller';
import { LogisticsUsersRepository } from './logistics-users.repository';
import { LogisticsUsersService } from './logistics-users.service';
import { RefreshTokensRepository } from './refresh-tokens.repository';

/** Part G: the logistics realm's authentication and user administration. */
@Module({
  controllers: [LogisticsAuthController, LogisticsUsersController],
  providers: [LogisticsUsersRepository, RefreshTokensRepository, LogisticsAuthService, LogisticsUsersService, LogisticsJwtGuard],
  exports: [LogisticsUsersService],
})
export class LogisticsModule {}
