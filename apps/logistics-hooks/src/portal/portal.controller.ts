import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { RateLimiter, rateLimitHeaders } from '@platform/rate-limit';
import type { Request, Response } from 'express';
import { ChatPublicDto, TrackPublicDto } from './dto/portal-requests.dto';
import { PortalService } from './portal.service';

/** Public chat: requests per IP per minute (spec, part F "Limits"). */
export const CHAT_LIMIT_PER_MINUTE = 10;

@ApiTags('portal')
@Controller('api')
export class PortalController {
  constructor(
    private readonly portal: PortalService,
    private readonly limiter: RateLimiter,
  ) {}

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
  @ApiTooManyRequestsResponse({ description: '`RATE_LIMIT_EXCEEDED` with `Retry-After`' })
  async chat(@Body() dto: ChatPublicDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    const decision = await this.limiter.hit(`chat:${req.ip ?? 'unknown'}`, CHAT_LIMIT_PER_MINUTE, 60_000);
    const { 'Retry-After': retryAfter, ...headers } = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (!decision.allowed) {
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `The public chat answers ${CHAT_LIMIT_PER_MINUTE} requests per minute per client`, {
        suggestion: `Wait ${retryAfter} seconds (Retry-After) before asking again.`,
        headers: { 'Retry-After': retryAfter },
      });
    }
    return { success: true, ...(await this.portal.chat(dto.message)), ...(dto.session_id ? { session_id: dto.session_id } : {}) };
  }
}
