import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type as Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * A numbered page `{data, total, page, pageSize, totalPages}` of `Item` (campaigns, segment members):
 * `export class CampaignPageDto extends PageDto(CampaignDto) {}` names the schema.
 */
export function PageDto<T>(item: Type<T>) {
  abstract class Page {
    @ApiProperty({ type: [item], description: 'Newest first; at most `pageSize` items' })
    data: T[];

    @ApiProperty({ type: 'integer', minimum: 0, description: 'Matching items in all pages' })
    total: number;

    @ApiProperty({ type: 'integer', minimum: 1 })
    page: number;

    @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
    pageSize: number;

    @ApiProperty({ type: 'integer', minimum: 0 })
    totalPages: number;
  }
  return Page;
}

/** `page` (from 1) and `pageSize` (1 to 100, default 20) of a numbered list. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Transform(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  pageSize: number = 20;
}
