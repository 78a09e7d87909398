import { Module } from '@nestjs/common';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { McpAccessGuard } from './mcp-access.guard';
import { McpServerService } from './mcp-server.service';
import { McpController } from './mcp.controller';
import { TransportChoiceService } from './transport-choice';

/** The MCP endpoints (Streamable HTTP and SSE), the tools' protocol servers and the open sessions. */
@Module({
  imports: [KnowledgeModule],
  controllers: [McpController],
  providers: [McpServerService, McpAccessGuard, TransportChoiceService],
  exports: [McpServerService],
})
export class McpModule {}
