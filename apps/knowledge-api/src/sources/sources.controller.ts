import { Body, Controller, Delete, Get, Param, Put, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ItemsPageDto, ListItemsQueryDto, UpdateItemDto } from './dto/items.dto';
import { DeleteSource } from './delete-source';
import { SourcesService } from './sources.service';
import { ApiKeyDocs } from '../common/api-key';

@ApiTags('knowledge items')
@ApiKeyDocs()
@Controller('api/knowledge-items')
export class KnowledgeItemsController {
  constructor(
    private readonly sources: SourcesService,
    private readonly deletion: DeleteSource,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List knowledge items', description: 'An item is one stored chunk with its source’s type and tags; filters apply to the source.' })
  @ApiOkResponse({ type: ItemsPageDto })
  list(@Query() query: ListItemsQueryDto): Promise<ItemsPageDto> {
    return this.sources.listItems(query);
  }

  @Put(':source_id')
  @ApiOperation({ summary: 'Update a source', description: '404 `{error: "Source not found"}` for an unknown source.' })
  async update(@Param('source_id') sourceId: string, @Body() dto: UpdateItemDto): Promise<{ success: boolean; message: string; source_id: string }> {
    await this.sources.update(sourceId, dto);
    return { success: true, message: `Knowledge item ${sourceId} updated`, source_id: sourceId };
  }

  @Delete(':source_id')
  @ApiOperation({ summary: 'Delete a source and its items', description: '`deleted_count` counts the items (chunks) removed; a queued or running crawl of the source is cancelled first. 404 `{error: "Source not found"}`.' })
  async remove(@Param('source_id') sourceId: string): Promise<{ success: boolean; message: string; deleted_count: number; source_id: string }> {
    const { pages } = await this.deletion.execute(sourceId);
    return { success: true, message: `Knowledge item ${sourceId} deleted`, deleted_count: pages, source_id: sourceId };
  }
}

@ApiTags('sources')
@ApiKeyDocs()
@Controller('api')
export class SourcesController {
  constructor(
    private readonly sources: SourcesService,
    private readonly deletion: DeleteSource,
  ) {}

  @Get('rag/sources')
  @ApiOperation({ summary: 'List sources' })
  async list(): Promise<{ success: boolean; sources: Array<Record<string, unknown>>; total_count: number }> {
    const sources = await this.sources.list();
    return { success: true, sources, total_count: sources.length };
  }

  @Delete('sources/:source_id')
  @ApiOperation({
    summary: 'Delete a source',
    description:
      'Removes the source, its pages (chunks) and code examples, cancelling its queued or running crawl first. A missing source answers **404** `{"error": "Source not found"}` (the spec leaves the status open).',
  })
  @ApiNotFoundResponse({ description: '`{"error": "Source not found"}`' })
  async remove(@Param('source_id') sourceId: string): Promise<{
    success: boolean;
    message: string;
    source_id: string;
    pages_deleted: number;
    code_examples_deleted: number;
    total_chunks_removed: number;
  }> {
    const { pages, codeExamples } = await this.deletion.execute(sourceId);
    return {
      success: true,
      message: `Source ${sourceId} deleted`,
      source_id: sourceId,
      pages_deleted: pages,
      code_examples_deleted: codeExamples,
      total_chunks_removed: pages + codeExamples,
    };
  }
}
