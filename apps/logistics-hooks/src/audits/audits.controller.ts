import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAccess } from '../access/api-key.guard';
import { AuditsService } from './audits.service';
import { AnAuditDto } from './dto/an-audit.dto';

const DESCRIPTION = [
  'Audits a parsed arrival notice `{notice: {job_type, containers, bill_of_lading, booking, consignee, eta, telex_release, charges}, checks?}`.',
  '',
  '**Own checks**: SHIPMENT_REFERENCE (stops: no container, bill of lading or booking number, or a container with a wrong check digit), CONSIGNEE,',
  'ETA, CHARGES (each with a positive amount and a currency), TELEX_RELEASE (freight jobs). **Upstream checks** `[{name, stop_processing, passed?,',
  'message?}]` are merged (`passed` absent = failed; the same name replaces the own check).',
  '',
  '**Outcome**: a failed check with `stop_processing` → `EXCEPTION`; else a freight job without telex release → `FINANCIAL_PENDING`; else any',
  'failed check → `PARTIAL_SUCCESS`; else `SUCCESS`. **Score** = 100 − 40 per failed stopping check − 25 for a pending telex release − 10 per',
  'other failed check (≥ 0). Below AUDIT_SCORE_THRESHOLD (default 70) a notification is POSTed to AUDIT_WEBHOOK_URL (HMAC-SHA256 in',
  '`X-Signature`, `X-Event-Id`), sent through the outbox with retries. → `{success, audit_id, shipment_ref, outcome, score, threshold,',
  'notification (queued, not_needed, not_configured), checks, audited_at}`.',
].join('\n');

@ApiTags('arrival notices')
@Controller('an-audit')
export class AuditsController {
  constructor(private readonly audits: AuditsService) {}

  @Post()
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiOperation({ summary: 'Audit an arrival notice', description: DESCRIPTION })
  @ApiOkResponse({ description: 'The audit result' })
  async audit(@Body() dto: AnAuditDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.audits.audit(dto)) };
  }
}
