import { Body, Controller, HttpCode, Post, type Type } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { BodyLimit } from '@platform/platform';
import { ApiKeyAccess } from '../access/api-key.guard';
import { BatchTrackingService } from './batch-tracking.service';
import { BatchTrackDto } from './dto/batch-track.dto';
import { EmailReportDto } from './dto/email-report.dto';
import { ReportMailer } from './report-mailer';

const BATCH_DESCRIPTION = [
  'Fetches each shipment\'s position feed (`tracking_url`, answering JSON `{lat, lon, speed, recorded_at, driver, eta?, location?}`) through the http-safety',
  'lib: public addresses only (a private or loopback link is never fetched → `not_found`), BATCH_TRACK_TIMEOUT_MS per link, 64 KiB, each distinct link once',
  'per call, BATCH_TRACK_CONCURRENCY at a time, at most BATCH_TRACK_MAX_SHIPMENTS shipments (else 422 `TOO_MANY_SHIPMENTS`).',
  '',
  '**Categories** (first rule that holds): `not_found` — no link, a refused address, no answer, a non-2xx other than 410, or no valid lat/lon/recorded_at;',
  '`expired` — 410 Gone or a position older than BATCH_EXPIRED_AFTER_MIN (120) minutes; `delayed` — the ETA (the feed\'s, else the planned one) more than',
  'BATCH_DELAY_TOLERANCE_MIN (30) minutes after the planned `eta`, or the planned `eta` passed more than that long ago; `stopped` — speed below',
  'BATCH_STOPPED_BELOW_KMH (5) km/h; else `on_time`.',
  '',
  'Answer `{success, totals: {trucks, on_time, attention, by_status}, checked_at, shipments: [{unit, containers, tracking_url, planned_eta, status, reason,',
  'location: {lat, lon, name}, speed, driver, recorded_at, age_minutes, eta, delay_minutes}]}`; `attention` counts every category but `on_time`.',
].join('\n');

const REPORT_DESCRIPTION = [
  'An HTML report of a batch-track result (`data`): totals and one row per shipment, inline CSS only (renders in Gmail, Outlook, Apple Mail), every value',
  'HTML-escaped. With `to` (comma-separated) it is sent through SMTP_URL from `from` (REPORT_FROM_ALLOWED: addresses or `@domain`s; default',
  'REPORT_FROM_DEFAULT) → `{success, sent: true, message_id, accepted, rejected, subject, from}`; with an empty `to` nothing is sent →',
  '`{success, sent: false, subject, html}`. A sender not allowed → 403 `SENDER_NOT_ALLOWED`; no SMTP_URL → 503 `SMTP_NOT_CONFIGURED`; the server',
  'refusing → 502 `SMTP_FAILED`; a bad address → 422 naming it.',
].join('\n');

/**
 * `POST /{prefix}-batch-track` and `POST /{prefix}-email-report` under LOGISTICS_PREFIX. The class is
 * built per prefix so that the paths, the API-key guard and the Swagger docs sit on the same methods.
 */
export function batchTrackingControllerAt(prefix: string): Type<unknown> {
  @ApiTags('batch tracking')
  @Controller()
  class BatchTrackingController {
    constructor(
      readonly batches: BatchTrackingService,
      readonly reports: ReportMailer,
    ) {}

    @Post(`${prefix}-batch-track`)
    // Up to MAX_SHIPMENTS_ACCEPTED (1,000) shipments with their feed URLs: more than the platform's 1 MB.
    @BodyLimit('4mb')
    @HttpCode(200)
    @ApiKeyAccess()
    @ApiOperation({ summary: 'Track a batch of trucks from their position feeds', description: BATCH_DESCRIPTION })
    @ApiOkResponse({ description: '`{success, totals, checked_at, shipments}`' })
    @ApiUnprocessableEntityResponse({ description: '`VALIDATION_ERROR`, `TOO_MANY_SHIPMENTS`' })
    async batchTrack(@Body() dto: BatchTrackDto): Promise<Record<string, unknown>> {
      return { success: true, ...(await this.batches.track(dto.shipments)) };
    }

    @Post(`${prefix}-email-report`)
    @HttpCode(200)
    @ApiKeyAccess()
    @ApiOperation({ summary: 'Email (or return) the HTML report of a batch-track result', description: REPORT_DESCRIPTION })
    @ApiOkResponse({ description: '`{success, sent, …}`' })
    @ApiForbiddenResponse({ description: '`SENDER_NOT_ALLOWED`' })
    @ApiUnprocessableEntityResponse({ description: '`VALIDATION_ERROR`, `TOO_MANY_RECIPIENTS`' })
    @ApiServiceUnavailableResponse({ description: '`SMTP_NOT_CONFIGURED`' })
    @ApiBadGatewayResponse({ description: '`SMTP_FAILED`' })
    async emailReport(@Body() dto: EmailReportDto): Promise<Record<string, unknown>> {
      return { success: true, ...(await this.reports.report(dto)) };
    }
  }
  return BatchTrackingController;
}
