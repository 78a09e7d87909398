import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RagQueryDto, RagQueryResultDto } from './dto/rag-query.dto';
import { SearchService } from './search.service';

@ApiTags('rag')
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
}
