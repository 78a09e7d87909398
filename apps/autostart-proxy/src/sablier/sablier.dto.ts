import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsOptional, IsString, Matches, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { parseGoDuration } from '../catalog/go-duration';

export const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The bounds of the query parameters (ms for durations), shared with the raw fast path (fast-query.ts). */
export const LIMITS = {
  names: 100,
  theme: 64,
  displayName: 200,
  session: [1_000, 7 * 86_400_000],
  refresh: [1_000, 3_600_000],
  timeout: [100, 600_000],
} as const;

/** A Go duration ("5m", "1h30m", "300ms") between `minMs` and `maxMs`. */
function IsGoDuration(minMs: number, maxMs: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isGoDuration',
      validator: {
        validate: (value: unknown) => {
          const ms = parseGoDuration(value);
          return ms !== undefined && ms >= minMs && ms <= maxMs;
        },
        defaultMessage: (args) => `${args?.property} must be a Go duration such as 5m, 1h30m or 30s, from ${minMs} ms to ${maxMs / 1000} s`,
      },
    },
    options,
  );
}

/** `names=a&names=b` and `names=a,b` alike: one list, blanks dropped; anything else is left for the validators to refuse. */
function namesList({ value }: { value: unknown }): unknown {
  const parts = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return value;
  return (parts as string[]).flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean);
}

function bool({ value }: { value: unknown }): unknown {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
}

/** What both strategies take: the instances (`names` or `group`, never both) and the session. */
export class StrategyQueryDto {
  @ApiPropertyOptional({
    type: [String],
    description: 'Managed service names (the YAML `name`, or the discovery label\'s), repeated (`names=a&names=b`) or comma-separated. Exactly one of `names` and `group`.',
    example: ['whisper'],
  })
  @IsOptional() @Transform(namesList) @IsArray() @ArrayMinSize(1) @ArrayMaxSize(LIMITS.names) @IsString({ each: true }) @Matches(NAME, { each: true, message: 'each of names must be a service name: lower-case letters, digits and dashes' })
  names?: string[];

  @ApiPropertyOptional({ description: 'A named group (the services\' `group`). Exactly one of `names` and `group`.', example: 'ml' })
  @IsOptional() @IsString() @Matches(NAME, { message: 'group must be a group name: lower-case letters, digits and dashes' })
  group?: string;

  @ApiPropertyOptional({
    description:
      'Go duration the session keeps the instances after this call (e.g. `5m`; 1 s to 7 days); each call renews it, on every replica. ' +
      'Without it the call counts as a request: the service\'s own idleTimeout applies.',
    example: '5m',
  })
  @IsOptional() @IsGoDuration(...LIMITS.session)
  session_duration?: string;
}

export class DynamicQueryDto extends StrategyQueryDto {
  @ApiPropertyOptional({ description: 'A theme of GET /api/themes; default: the first service\'s theme', example: 'hacker-terminal' })
  @IsOptional() @IsString() @MaxLength(LIMITS.theme)
  theme?: string;

  @ApiPropertyOptional({ description: 'Title of the page; default: the group\'s name, or the services\' displayName', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(LIMITS.displayName)
  display_name?: string;

  @ApiPropertyOptional({ description: 'List each instance with its status and replicas (default true)', type: Boolean })
  @IsOptional() @Transform(bool) @IsBoolean()
  show_details?: boolean;

  @ApiPropertyOptional({ description: 'Go duration between two reloads of the page (default 5s; 1 s to 1 h)', example: '5s' })
  @IsOptional() @IsGoDuration(...LIMITS.refresh)
  refresh_frequency?: string;
}

export class BlockingQueryDto extends StrategyQueryDto {
  @ApiPropertyOptional({ description: 'Go duration to wait for every instance to be ready (default 1m; 100 ms to 10 min), then 504', example: '1m' })
  @IsOptional() @IsGoDuration(...LIMITS.timeout)
  timeout?: string;
}

export class InstanceInfoDto {
  @ApiProperty({ example: 'whisper' }) name!: string;
  @ApiProperty({ enum: ['ready', 'not-ready', 'error'] }) status!: string;
  @ApiProperty() currentReplicas!: number;
  @ApiProperty() desiredReplicas!: number;
  @ApiProperty({ enum: ['docker', 'kubernetes'] }) provider!: string;
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiPropertyOptional({ description: 'why it is not ready (a failed start)' }) message?: string;
  @ApiPropertyOptional({ description: 'Go duration waited after the first healthy answer (readyAfter)', example: '5s' }) readyAfter?: string;
}

export class InstanceEntryDto {
  @ApiProperty({ type: InstanceInfoDto }) instance!: InstanceInfoDto;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
}

export class SessionDto {
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/InstanceEntryDto' }, description: 'by instance name' })
  instances!: Record<string, InstanceEntryDto>;
  @ApiProperty({ enum: ['ready', 'not-ready'] }) status!: string;
}

export class BlockingAnswerDto {
  @ApiProperty({ type: SessionDto }) session!: SessionDto;
}

export class ThemesDto {
  @ApiProperty({ type: [String], example: ['ghost', 'hacker-terminal', 'matrix', 'shuffle'], description: 'built in and custom (AUTOSTART_THEMES_DIR)' })
  themes!: string[];
}

export class ProblemDto {
  @ApiProperty({ example: 'https://developer.mozilla.org/docs/Web/HTTP/Status/404' }) type!: string;
  @ApiProperty({ example: 'Not Found' }) title!: string;
  @ApiProperty({ example: 404 }) status!: number;
  @ApiProperty({ example: 'No managed service is named "nope"' }) detail!: string;
  @ApiProperty({ example: '/api/strategies/blocking?names=nope' }) instance!: string;
  @ApiPropertyOptional({ description: 'validation: each bad parameter' }) errors?: { field: string; message: string; code: string }[];
}
