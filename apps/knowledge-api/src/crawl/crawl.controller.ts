import { Body, Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ProgressService } from '../progress/progress.service';
import { BackfillEmbeddings } from './backfill-embeddings';
import { classifyUrl } from './crawl-urls';
import { CrawlService, estimatedDuration } from './crawl.service';
import { RefreshSource } from './refresh-source';
import { CrawlWorker } from './crawl.worker';
import { CrawlRequestDto, CrawlStartedDto } from './dto/crawl-request.dto';
import { ApiKeyDocs } from '../common/api-key';

@ApiTags('knowledge items')
@ApiKeyDocs()
@Controller('api/knowledge-items')
export class CrawlController {
  constructor(
    private readonly crawls: CrawlService,
    private readonly worker: CrawlWorker,
    private readonly progress: ProgressService,
    private readonly backfill: BackfillEmbeddings,
    private readonly refreshes: RefreshSource,
  ) {}

  @Post(':source_id/refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Recrawl a source now',
    description:
      'Queues a recrawl of a crawled source with its stored URL and settings (as Archon\'s refresh): answers as `POST …/crawl` does; only changed pages are chunked again, pages no longer found are removed. 404 unknown source, 400 for an uploaded document, 409 while a crawl of it is queued or running.',
  })
  @ApiOkResponse({ type: CrawlStartedDto })
  @ApiBadRequestResponse({ description: '`{"error"}`: the source is an uploaded document' })
  async refresh(@Param('source_id') sourceId: string): Promise<CrawlStartedDto> {
    const { progressId, url, maxDepth } = await this.refreshes.execute(sourceId);
    this.worker.wake();
    return { success: true, progress_id: progressId, message: `Refreshing ${sourceId} from ${url}`, estimated_duration: estimatedDuration(classifyUrl(url), maxDepth) };
  }

  @Post('backfill-embeddings')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Embed what has no vector of the configured model',
    description:
      'Queues the embeddings backfill: every chunk and code example without a vector (stored while the embeddings server was down) or with one of another model (`embedding_model`) is embedded with EMBEDDINGS_MODEL. Answers `{success, progress_id, message, started}` at once; follow it as a crawl (`GET /api/progress/{progress_id}`, Socket.IO). One runs at a time: while one is queued or running its progress_id is answered with `started: false`. 400 without EMBEDDINGS_URL.',
  })
  @ApiBadRequestResponse({ description: '`{"error"}`: EMBEDDINGS_URL is not set' })
  async backfillEmbeddings(): Promise<{ success: boolean; progress_id: string; message: string; started: boolean }> {
    const { payload, created } = await this.backfill.queue();
    this.worker.wake();
    return {
      success: true,
      progress_id: payload.progressId,
      started: created,
      message: created ? 'Embeddings backfill queued' : 'An embeddings backfill is already queued or running: follow it',
    };
  }

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
