import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class ServiceViewDto {
  @ApiProperty({ example: 'whisper.example.com', nullable: true, type: String, description: 'the first of its hosts (null: a discovered service without hosts, reached through Sablier\'s API only)' }) hostname!: string | null;
  @ApiProperty({ type: [String] }) hosts!: string[];
  @ApiProperty({ example: 'whisper' }) name!: string;
  @ApiProperty({ enum: ['dynamic', 'async', 'blocking'] }) mode!: string;
  @ApiProperty({ nullable: true, example: 'hacker-terminal', description: 'dynamic services only' }) theme!: string | null;
  @ApiProperty({ enum: ['unknown', 'stopped', 'starting', 'running', 'stopping', 'failed'], description: 'the shared life-cycle state (all replicas)' }) status!: string;
  @ApiProperty({ description: "the engine's view now: stopped, stopping, starting, running, unhealthy, failed (unknown: the engine did not answer)" }) engineState!: string;
  @ApiProperty({ type: [String], description: 'Docker: the matched containers; Kubernetes: empty (see replicas)' }) containers!: string[];
  @ApiProperty({ nullable: true, description: '{desired, current, ready}' }) replicas!: { desired: number; current: number; ready: number } | null;
  @ApiProperty({ enum: ['docker', 'kubernetes'] }) provider!: string;
  @ApiProperty({ nullable: true, type: String, description: 'its named group (started and stopped together)' }) group!: string | null;
  @ApiProperty({ enum: ['file', 'docker', 'kubernetes'], description: 'declared in AUTOSTART_CONFIG, or discovered from labels / annotations' }) source!: string;
  @ApiProperty() target!: string;
  @ApiProperty() upstream!: string;
  @ApiProperty({ description: 'seconds' }) estimatedTime!: number;
  @ApiProperty({ description: 'seconds' }) idleTimeout!: number;
  @ApiProperty({ description: 'seconds' }) startTimeout!: number;
  @ApiProperty({ description: 'seconds since the last request (or since the proxy first saw it)' }) idleTime!: number;
  @ApiProperty({ nullable: true }) lastActivity!: string | null;
  @ApiProperty({ nullable: true }) lastError!: string | null;
  @ApiProperty() starts!: number;
  @ApiProperty() stops!: number;
  @ApiProperty({ description: 'requests proxied to it, all replicas (written every AUTOSTART_FLUSH_MS)' }) requests!: number;
}

export class ServiceListDto {
  @ApiProperty() totalServices!: number;
  @ApiProperty({ description: 'the default idle timeout, seconds' }) idleTimeout!: number;
  @ApiProperty({ type: [ServiceViewDto] }) services!: ServiceViewDto[];
}

export class HealthBodyDto {
  @ApiProperty({ enum: ['ready', 'starting', 'stopped', 'failed'] }) status!: string;
  @ApiProperty() service!: string;
  @ApiProperty() hostname!: string;
  @ApiPropertyOptional({ type: [String], description: 'ready: the containers' }) containers?: string[];
  @ApiPropertyOptional({ description: 'starting, stopped: seconds' }) estimatedTime?: number;
  @ApiPropertyOptional({ description: 'starting: seconds (also the Retry-After header)' }) retryAfter?: number;
  @ApiPropertyOptional() elapsed?: number;
  @ApiPropertyOptional({ description: 'failed: why' }) error?: string;
  @ApiPropertyOptional() message?: string;
}

export interface HealthAnswer {
  status: number;
  retryAfter?: number;
  body: HealthBodyDto;
}

export class RequestRecordDto {
  @ApiProperty() service!: string;
  @ApiProperty() host!: string;
  @ApiProperty() method!: string;
  @ApiProperty({ description: 'without the query string' }) path!: string;
  @ApiProperty() status!: number;
  @ApiProperty({ enum: ['proxied', 'waiting', 'accepted', 'failed'] }) outcome!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty() at!: string;
}

export class RequestHistoryDto {
  @ApiProperty() service!: string;
  @ApiProperty({ type: [RequestRecordDto] }) requests!: RequestRecordDto[];
}

export class HistoryQueryDto {
  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 1000 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  limit?: number;
}
