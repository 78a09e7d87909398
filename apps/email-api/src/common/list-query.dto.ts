import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `limit` (default 20, max 100) and `cursor` of every cursor-paginated list. */
export class CursorQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page; omit for the first page (which alone carries `total`).' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export const DEFAULT_LIMIT = 20;
