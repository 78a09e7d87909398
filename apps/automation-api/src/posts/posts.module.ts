import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { RunsModule } from '../runs/runs.module';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';

@Module({
  imports: [AccountsModule, AutomationsModule, RunsModule],
  controllers: [PostsController],
  providers: [PostsService],
})
export class PostsModule {}
