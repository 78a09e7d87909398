import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { BillingModule } from '../billing/billing.module';
import { ContactsModule } from '../contacts/contacts.module';
import { PlannedPostsModule } from '../planned-posts/planned-posts.module';
import { ReelsModule } from '../reels/reels.module';
import { TokensModule } from '../tokens/tokens.module';
import { VideosModule } from '../videos/videos.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';
import { McpSessions } from './mcp-sessions';
import { PlatformToolsService } from './platform-tools.service';

/** The MCP server at /mcp; its tools reach the REST controllers and services through ModuleRef. */
@Module({
  imports: [AccountsModule, AutomationsModule, BillingModule, ContactsModule, PlannedPostsModule, ReelsModule, TokensModule, VideosModule],
  controllers: [McpController],
  providers: [McpService, McpSessions, PlatformToolsService],
  exports: [McpService],
})
export class McpModule {}
