import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectController } from './connect.controller';
import { ConnectRepository } from './connect.repository';
import { ConnectService } from './connect.service';

/** Connecting accounts through the platform's OAuth login: connect links, the page, the callback. */
@Module({
  imports: [AccountsModule],
  controllers: [ConnectController],
  providers: [ConnectRepository, ConnectService],
  exports: [ConnectService],
})
export class ConnectModule {}
