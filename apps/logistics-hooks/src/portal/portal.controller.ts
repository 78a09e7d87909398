import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { PublicRateLimit } from './public-rate-limit.guard';
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
      'A container number (its ISO 6346 check digit must be right: else 422 `INVALID_TRACKING_NUMBER` naming the expected digit), bill of lading (carrier SCAC prefix) or booking number. ' +
      'Answers shipment facts only, from the carrier through ocean tracking (DCSA Track & Trace, cached; see `POST /ocean-track` for the mapping): `carrier`, `kind`, `available` ' +
      '(false when the carrier is unknown, not configured or not answering and nothing is stored), `vessel`, `voyage`, `etd`, `eta`, `port`, `port_of_loading`, `port_of_discharge`, ' +
      '`status`, `events` (description, code, classifier, time, location), `last_update`, `stale`. Never anything of the service\'s internal tasks. ' +
      'PORTAL_TRACK_LIMIT_PER_MINUTE (default 30) requests per minute per client IP (429 `RATE_LIMIT_EXCEEDED`, `RateLimit-*` headers). ' +
      'This is the only route with CORS headers (`*`, preflight included).',
  })
  @PublicRateLimit('track')
  @ApiOkResponse({ description: 'The shipment facts (`available: false` when the carrier has none)' })
  @ApiUnprocessableEntityResponse({ description: '`INVALID_TRACKING_NUMBER` (a wrong check digit) or `VALIDATION_ERROR`' })
  async track(@Body() dto: TrackPublicDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.portal.track(dto.tracking_number)) };
  }

  @Post('chat/public')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Public chat (10 requests per minute per IP)',
    description:
      'Answers tracking questions with the carrier\'s facts (as track-public; only well-formed container, bill of lading or booking numbers in the message are looked up, at most 3) ' +
      'and FAQ questions (documents, customs, demurrage, payment, contact; the facts stated come from the PORTAL_* settings); ' +
      'through the model when `LLM_URL` is set (given only the FAQ and the looked-up facts), by the rules otherwise or when it fails. `RateLimit-*` headers on every answer.',
  })
  @PublicRateLimit('chat')
  @ApiOkResponse({ description: '`{success, reply, topic, answered_by, references, session_id?}`' })
  async chat(@Body() dto: ChatPublicDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.portal.chat(dto.message)), ...(dto.session_id ? { session_id: dto.session_id } : {}) };
  }
}
