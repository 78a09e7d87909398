import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsTagList } from '../../common/tags.decorator';
import { KNOWLEDGE_TYPES } from '../sources.types';

const toArray = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : (Array.isArray(value) ? value : String(value).split(',')).map((v) => String(v).trim()).filter(Boolean);

export class ListItemsQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  per_page?: number;

  @ApiPropertyOptional({ enum: KNOWLEDGE_TYPES })
  @IsOptional()
  @IsIn(KNOWLEDGE_TYPES)
  knowledge_type?: (typeof KNOWLEDGE_TYPES)[number];

  @ApiPropertyOptional({ type: [String], description: 'Items of sources having any of these tags (repeat the parameter, or comma-separated).' })
  @IsOptional()
  @Transform(toArray)
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  tags?: string[];

  @ApiPropertyOptional({ enum: ['active', 'archived'] })
  @IsOptional()
  @IsIn(['active', 'archived'])
  status?: 'active' | 'archived';

  @ApiPropertyOptional({ enum: ['url', 'file'] })
  @IsOptional()
  @IsIn(['url', 'file'])
  source_type?: 'url' | 'file';
}

export class UpdateItemDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  title?: string;

  @ApiPropertyOptional({ enum: KNOWLEDGE_TYPES })
  @IsOptional()
  @IsIn(KNOWLEDGE_TYPES)
  knowledge_type?: (typeof KNOWLEDGE_TYPES)[number];

  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional({ enum: ['active', 'archived'], description: 'archived sources are listed but not searched' })
  @IsOptional()
  @IsIn(['active', 'archived'])
  status?: 'active' | 'archived';

  @ApiPropertyOptional({ description: 'days between recrawls of a crawled source; 0 = never' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(365)
  update_frequency?: number;
}

export class ItemMetadataDto {
  @ApiProperty() source_id!: string;
  @ApiProperty() char_count!: number;
  @ApiProperty() word_count!: number;
  @ApiProperty({ type: [String] }) headers!: string[];
}

export class KnowledgeItemDto {
  @ApiProperty() id!: number;
  @ApiProperty() url!: string;
  @ApiProperty() title!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ enum: KNOWLEDGE_TYPES }) knowledge_type!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: ItemMetadataDto }) metadata!: ItemMetadataDto;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class PaginationDto {
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() has_next!: boolean;
  @ApiProperty() has_prev!: boolean;
}

export class ItemsPageDto {
  @ApiProperty({ type: [KnowledgeItemDto] }) items!: KnowledgeItemDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}
