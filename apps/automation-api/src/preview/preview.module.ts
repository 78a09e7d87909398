import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { PreviewController } from './preview.controller';
import { PreviewService } from './preview.service';

@Module({
  imports: [AccountsModule, AutomationsModule],
  controllers: [PreviewController],
  providers: [PreviewService],
})
export class PreviewModule {}
