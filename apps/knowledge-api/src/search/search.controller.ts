import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CodeExamplesQueryDto, CodeExamplesResultDto, RagQueryDto, RagQueryResultDto } from './dto/rag-query.dto';
import { SearchService } from './search.service';
import { ApiKeyDocs } from '../common/api-key';

@ApiTags('rag')
@ApiKeyDocs()
@Controller('api/rag')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Post('query')
  @HttpCode(200)
  @ApiOperation({ summary: 'Search the knowledge base', description: 'Archived sources are not searched. `similarity_score` is in [0, 1] (see the result schema).' })
  @ApiOkResponse({ type: RagQueryResultDto })
  query(@Body() dto: RagQueryDto): Promise<RagQueryResultDto> {
    return this.search.query(dto);
  }

  @Post('code-examples')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search the code examples',
    description:
      'Code examples are the fenced blocks of ≥ 250 characters found on crawled pages and uploads, stored with their language and the text before them (`summary`). Searched as `/api/rag/query` searches chunks: full-text (language, summary, code) and, with embeddings, hybrid. `language` filters by the fence\'s language (case-insensitive).',
  })
  @ApiOkResponse({ type: CodeExamplesResultDto })
  codeExamples(@Body() dto: CodeExamplesQueryDto): Promise<CodeExamplesResultDto> {
    return this.search.codeExamples(dto);
  }
}
