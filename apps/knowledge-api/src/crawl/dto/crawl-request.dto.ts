import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { IsTagList } from '../../common/tags.decorator';
import { KNOWLEDGE_TYPES } from '../../sources/sources.types';

export class CrawlRequestDto {
  @ApiProperty({ example: 'https://docs.example.com/', description: 'A `…sitemap.xml` URL, a `.txt` URL (llms.txt), or a page to crawl recursively.' })
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'url must be an http:// or https:// URL' })
  url!: string;

  @ApiProperty({ enum: KNOWLEDGE_TYPES })
  @IsIn(KNOWLEDGE_TYPES)
  knowledge_type!: (typeof KNOWLEDGE_TYPES)[number];

  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional({ default: 7, description: 'Days between recrawls (only changed pages are chunked again); 0 = never.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(365)
  update_frequency?: number;

  @ApiPropertyOptional({ default: 2, minimum: 1, maximum: 5, description: '1 = the start page only; each level follows the links of the one before.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  max_depth?: number;
}

export class CrawlStartedDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ format: 'uuid' }) progress_id!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ example: '1-3 minutes' }) estimated_duration!: string;
}
