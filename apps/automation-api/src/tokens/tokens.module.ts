import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { TokenRefreshWorker } from './token-refresh.worker';
import { TokensService } from './tokens.service';

@Module({
  imports: [AccountsModule],
  providers: [TokensService, TokenRefreshWorker],
  exports: [TokensService, TokenRefreshWorker],
})
export class TokensModule {}
