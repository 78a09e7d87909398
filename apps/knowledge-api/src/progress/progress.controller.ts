import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProgressPayload } from './progress-payload';
import { ProgressService } from './progress.service';
import { ApiKeyDocs } from '../common/api-key';

@ApiTags('progress')
@ApiKeyDocs()
@Controller('api/progress')
export class ProgressController {
  constructor(private readonly progress: ProgressService) {}

  @Get(':progress_id')
  @ApiOperation({
    summary: 'Read a progress',
    description:
      'The same payload as the Socket.IO events (progressId, status, percentage, start_time, currentUrl, totalPages, processedPages, log, logs; chunksStored and wordCount once completed; error once failed or cancelled), read from the database, so any replica answers and a reconnecting client loses nothing. 404 for an unknown id.',
  })
  get(@Param('progress_id', new ParseUUIDPipe()) progressId: string): Promise<ProgressPayload> {
    return this.progress.get(progressId);
  }

  @Delete(':progress_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel the crawl of this progress', description: 'Same as POST /api/knowledge-items/stop/{progress_id}.' })
  cancel(@Param('progress_id', new ParseUUIDPipe()) progressId: string): Promise<ProgressPayload> {
    return this.progress.cancel(progressId);
  }
}
