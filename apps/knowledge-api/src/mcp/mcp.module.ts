import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { SearchModule } from '../search/search.module';
import { McpConfigService } from './mcp-config.service';
import { McpControlService } from './mcp-control.service';
import { McpLogsService } from './mcp-logs.service';
import { McpStore } from './mcp-store';
import { McpToolsService } from './mcp-tools.service';
import { McpController } from './mcp.controller';

/** `/api/mcp/*`: the MCP server's workload through @platform/containers, its logs, configuration and tools. */
@Module({
  imports: [RealtimeModule, SearchModule],
  controllers: [McpController],
  providers: [McpStore, McpConfigService, McpControlService, McpLogsService, McpToolsService],
  exports: [McpControlService],
})
export class McpModule {}
