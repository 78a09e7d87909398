import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatRateLimit } from './chat-rate-limit.guard';
import { ChatPublicDto, TrackPublicDto } from './dto/portal-requests.dto';
import { PortalService } from './portal.service';

@ApiTags('portal')
@Controller('api')
export class PortalController {
  constructor(private readonly portal: PortalService) {}

  @Get('dashboard/stats')
  @ApiOperation({
    summary: 'Dashboard counts (public)',
    description:
      '`shipments`: distinct container, bill of lading and booking numbers named by the stored tasks; `tasks`: total, open (PENDING + IN_PROGRESS), by status and priority; ' +
      '`incidents`: error records, open (open + fix proposed), by status, occurrences. No authentication.',
  })
  async dashboard(): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.portal.dashboardStats()) };
  }

  @Post('track-public')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Public tracking (CORS open to all origins)',
    description:
      'A container number (its ISO 6346 check digit must be right: else 422 `INVALID_TRACKING_NUMBER` naming the expected digit), bill of lading or booking number. ' +
      'Answers from the service\'s own records: `carrier` (from the prefix), `kind`, `status` (`NO_RECORDS`, `ATTENTION`: an open HIGH-priority matter, `FOLLOW_UP`, `CLEAR`), ' +
      'counts of records and open records, open topics and the last update; never the emails themselves. This is the only route with CORS headers (`*`, preflight included).',
  })
  async track(@Body() dto: TrackPublicDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.portal.track(dto.tracking_number)) };
  }

  @Post('chat/public')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Public chat (10 requests per minute per IP)',
    description:
      'Answers tracking questions from the service\'s records (container, bill of lading or booking numbers in the message) and FAQ questions (documents, customs, demurrage, payment, contact); ' +
      'through the model when `LLM_URL` is set (given only the FAQ and the looked-up facts), by the rules otherwise or when it fails. `RateLimit-*` headers on every answer.',
  })
  @ChatRateLimit()
  async chat(@Body() dto: ChatPublicDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.portal.chat(dto.message)), ...(dto.session_id ? { session_id: dto.session_id } : {}) };
  }
}
