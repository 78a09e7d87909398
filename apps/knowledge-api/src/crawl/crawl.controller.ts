import { Body, Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ProgressService } from '../progress/progress.service';
import { CrawlService, estimatedDuration } from './crawl.service';
import { CrawlWorker } from './crawl.worker';
import { CrawlRequestDto, CrawlStartedDto } from './dto/crawl-request.dto';

@ApiTags('knowledge items')
@Controller('api/knowledge-items')
export class CrawlController {
  constructor(
    private readonly crawls: CrawlService,
    private readonly worker: CrawlWorker,
    private readonly progress: ProgressService,
  ) {}

  @Post('crawl')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start a crawl',
    description:
      'Answers at once; the crawl runs in the background on one replica and survives the client disconnecting. Follow it over Socket.IO (`/crawl`: `subscribe` {progress_id}; `/`: `join_progress`) or `GET /api/progress/{progress_id}`. 400 for a URL that may not be crawled (private address without CRAWL_ALLOW_PRIVATE); 409 while a crawl of the same host runs.',
  })
  @ApiOkResponse({ type: CrawlStartedDto })
  async crawl(@Body() dto: CrawlRequestDto): Promise<CrawlStartedDto> {
    const { progressId, kind, request } = await this.crawls.start(dto);
    this.worker.wake();
    return {
      success: true,
      progress_id: progressId,
      message: `Crawling started for ${request.url}`,
      estimated_duration: estimatedDuration(kind, request.max_depth),
    };
  }

  @Post('stop/:progress_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a crawl', description: 'Ends with status `cancelled` (a `progress_error` event). 404 unknown id; 409 already ended.' })
  async stop(@Param('progress_id', new ParseUUIDPipe()) progressId: string): Promise<{ success: boolean; message: string; progress_id: string }> {
    await this.progress.cancel(progressId);
    return { success: true, message: 'Crawl cancellation requested', progress_id: progressId };
  }
}
