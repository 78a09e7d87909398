import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { ERROR_STATES, type ErrorState } from '../error-status';

export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export class ReportErrorDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiProperty({ description: 'The error message; its SHA-256 is the fingerprint that deduplicates reports', example: 'ONE tracking API answered 502' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(10_000)
  message!: string;

  @ApiPropertyOptional({ description: 'Workflow or system that failed', default: 'unknown', example: 'ocean-track' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  source?: string;

  @ApiPropertyOptional({ enum: SEVERITIES, default: 'error' })
  @IsOptional()
  @IsIn(SEVERITIES)
  severity?: Severity;

  @ApiPropertyOptional({ description: 'Stack trace; a repeat replaces it with the latest' })
  @IsOptional()
  @IsString()
  @MaxLength(50_000)
  stack?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Any JSON object (the failing input, ids); a repeat replaces it' })
  @IsOptional()
  @IsObject()
  context?: Record<string, unknown>;
}

export class ListErrorsQuery {
  @ApiPropertyOptional({ enum: ERROR_STATES })
  @IsOptional()
  @IsIn(ERROR_STATES)
  status?: ErrorState;

  @ApiPropertyOptional({ enum: SEVERITIES })
  @IsOptional()
  @IsIn(SEVERITIES)
  severity?: Severity;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  source?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}

export class UpdateErrorDto {
  @ApiPropertyOptional({
    enum: ERROR_STATES,
    description: 'open → fix proposed → resolved; also open → resolved, fix proposed → open, resolved → open; resolved → fix proposed is refused (409)',
  })
  @IsOptional()
  @IsIn(ERROR_STATES)
  status?: ErrorState;

  @ApiPropertyOptional({ nullable: true })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  proposed_fix?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  notes?: string | null;
}
