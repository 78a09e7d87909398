import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { ItemMetadataDto } from '../../sources/dto/items.dto';

export class RagQueryDto {
  @ApiProperty({ example: 'how do I configure the crawler' })
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  query!: string;

  @ApiPropertyOptional({ description: 'only this source_id' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  source?: string;

  @ApiPropertyOptional({ default: 5, minimum: 1, maximum: 50 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  match_count?: number;
}

export class SearchResultDto {
  @ApiProperty() id!: number;
  @ApiProperty() title!: string;
  @ApiProperty() content!: string;
  @ApiProperty() url!: string;
  @ApiProperty({
    description:
      'In [0, 1], higher is better. Reranked (`reranked: true`): the rerank endpoint\'s relevance score. Otherwise, full-text only: ts_rank_cd normalised as rank/(rank+1). Hybrid: reciprocal rank fusion (k = 60) of the full-text and vector rankings divided by its maximum 2/61, so 1 means first in both.',
  })
  similarity_score!: number;
  @ApiProperty({ type: ItemMetadataDto }) metadata!: ItemMetadataDto;
}

export class RagQueryResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() query!: string;
  @ApiProperty({ type: [SearchResultDto] }) results!: SearchResultDto[];
  @ApiProperty() total_results!: number;
  @ApiProperty({ description: 'seconds' }) processing_time!: number;
  @ApiProperty({ enum: ['full_text', 'hybrid'], description: 'how the results were found' }) search_mode!: string;
  @ApiProperty({ description: 'whether the rerank endpoint (RERANK_URL) ordered the results; false without one or when it failed (see note)' }) reranked!: boolean;
  @ApiPropertyOptional({ description: 'why the answer is full-text only although embeddings are configured (server timed out, failing: circuit breaker open), or why reranking was skipped' })
  note?: string;
}

export class CodeExamplesQueryDto extends RagQueryDto {
  @ApiPropertyOptional({ description: 'only code examples in this language (as the fence named it, case-insensitive), e.g. `python`' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  language?: string;
}

export class CodeExampleResultDto {
  @ApiProperty() id!: number;
  @ApiProperty() source_id!: string;
  @ApiProperty() url!: string;
  @ApiProperty() language!: string;
  @ApiProperty({ description: 'the code' }) content!: string;
  @ApiProperty({ description: 'the text before the code on its page' }) summary!: string;
  @ApiProperty({ description: 'in [0, 1], as for /api/rag/query' }) similarity_score!: number;
}

export class CodeExamplesResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() query!: string;
  @ApiProperty({ type: [CodeExampleResultDto] }) results!: CodeExampleResultDto[];
  @ApiProperty() total_results!: number;
  @ApiProperty({ description: 'seconds' }) processing_time!: number;
  @ApiProperty({ enum: ['full_text', 'hybrid'] }) search_mode!: string;
  @ApiProperty({ description: 'as for /api/rag/query' }) reranked!: boolean;
  @ApiPropertyOptional() note?: string;
}
