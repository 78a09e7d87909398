import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export const MCP_STATES = ['running', 'stopped', 'starting', 'stopping', 'not_found', 'docker_unavailable'];
export const MCP_TRANSPORTS = ['all', 'streamable-http', 'sse'] as const;

export class McpHealthDto {
  @ApiProperty({ description: 'the workload\'s health check (healthy, starting, unhealthy, stopped), or the server\'s /healthz probed when it has none; not_found or docker_unavailable when there is no workload to ask' }) status!: string;
  @ApiProperty() port!: number;
  @ApiProperty({ enum: MCP_TRANSPORTS }) transport!: string;
}

export class McpStatusDto {
  @ApiProperty({ enum: MCP_STATES }) status!: string;
  @ApiProperty({ nullable: true, type: String }) container_id!: string | null;
  @ApiProperty() container_name!: string;
  @ApiProperty({ nullable: true, type: Number, description: 'seconds since start_time, while running' }) uptime!: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'ISO 8601: the container\'s start (Docker), or when knowledge-api started it (Kubernetes)' }) start_time!: string | null;
  @ApiProperty({ type: McpHealthDto }) health!: McpHealthDto;
  @ApiPropertyOptional({ description: 'why, for not_found and docker_unavailable' }) message?: string;
}

export class McpStartDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() message!: string;
  @ApiProperty({ enum: MCP_STATES }) status!: string;
  @ApiProperty({ nullable: true, type: String }) container_id!: string | null;
}

export class McpStopDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() message!: string;
  @ApiProperty({ enum: MCP_STATES }) status!: string;
}

export class McpLogsQueryDto {
  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  limit?: number;
}

export class McpLogEntryDto {
  @ApiProperty({ description: 'when the server wrote the line (the engine\'s RFC 3339 timestamp)' }) timestamp!: string;
  @ApiProperty({ enum: ['debug', 'info', 'warning', 'error'] }) level!: string;
  @ApiProperty() message!: string;
}

export class McpLogsDto {
  @ApiProperty({ type: [McpLogEntryDto], description: 'oldest first' }) logs!: McpLogEntryDto[];
}

export class SuccessMessageDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() message!: string;
}

export class McpConfigDto {
  @ApiProperty({ description: 'the MCP server\'s host name, as knowledge-api reaches it and clients are told' }) host!: string;
  @ApiProperty() port!: number;
  @ApiProperty({ enum: MCP_TRANSPORTS, description: 'the transports the server serves: Streamable HTTP (/mcp), SSE (/sse), or all' }) transport!: string;
  @ApiProperty({ description: 'the chat model (LLM_MODEL) of contextual embeddings and project drafting' }) model_choice!: string;
  @ApiProperty({ description: 'CONTEXTUAL_EMBEDDINGS on, with LLM_URL and EMBEDDINGS_URL set' }) use_contextual_embeddings!: boolean;
  @ApiProperty({ description: 'an embeddings server (EMBEDDINGS_URL) and a vector store: full-text and vector search fused' }) use_hybrid_search!: boolean;
  @ApiProperty({ description: 'code-example search (POST /api/rag/code-examples, the search_code_examples tool): always' }) use_agentic_rag!: boolean;
  @ApiProperty({ description: 'RERANK_URL set' }) use_reranking!: boolean;
  @ApiProperty({ description: 'why each flag has its value (contextual_embeddings, hybrid_search, agentic_rag, reranking)', type: 'object', additionalProperties: { type: 'string' } })
  notes!: Record<string, string>;
  @ApiProperty({ description: 'host, port and transport as in use since the server\'s last start (they differ from the above until the next start)' })
  active!: { host: string; port: number; transport: string };
  @ApiProperty() note!: string;
}

export class McpConfigUpdateDto {
  @ApiPropertyOptional({ enum: MCP_TRANSPORTS })
  @IsOptional()
  @IsIn(MCP_TRANSPORTS, { message: `transport must be one of ${MCP_TRANSPORTS.join(', ')}` })
  transport?: (typeof MCP_TRANSPORTS)[number];

  @ApiPropertyOptional({ example: 'knowledge-mcp' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$|^\[[0-9a-fA-F:]+\]$/, { message: 'host must be a host name or an address' })
  host?: string;

  @ApiPropertyOptional({ example: 3009 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  port?: number;
}

export class McpToolParameterDto {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'JSON Schema type (alternatives joined by |)' }) type!: string;
  @ApiProperty() required!: boolean;
}

export class McpToolDto {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: ['rag', 'projects', 'server'] }) module!: string;
  @ApiProperty({ type: [McpToolParameterDto] }) parameters!: McpToolParameterDto[];
}

export class McpToolsDto {
  @ApiProperty({ type: [McpToolDto] }) tools!: McpToolDto[];
  @ApiProperty() count!: number;
  @ApiProperty() server_running!: boolean;
  @ApiProperty({ enum: ['mcp_server', 'catalogue'] }) source!: string;
  @ApiPropertyOptional() message?: string;
}

export class McpApiHealthDto {
  @ApiProperty({ enum: ['healthy', 'unhealthy'], example: 'healthy' }) status!: 'healthy' | 'unhealthy';
  @ApiProperty({ example: 'mcp' }) service!: string;
  @ApiPropertyOptional({ description: 'unhealthy: why the container engine cannot be reached' }) message?: string;
}
