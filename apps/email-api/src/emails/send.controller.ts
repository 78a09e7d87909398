import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ok } from '@platform/envelopes';
import { BodyLimit } from '@platform/platform';
import type { Response } from 'express';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, jsonBodyErrors } from '../common/api-errors.decorator';
import { SEND_BODY_LIMIT } from '../common/body-limits';
import { RequestId } from '../common/request-id.decorator';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { SendResultDto } from './dto/send-response.dto';
import { SendEmailDto } from './dto/send.dto';
import { SendService } from './send.service';

@ApiTags('Public API')
@Controller('v1')
export class SendController {
  constructor(
    private readonly sender: SendService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post('send')
  @BodyLimit(SEND_BODY_LIMIT)
  @HttpCode(200)
  @ProjectAccess()
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'As for POST /v1/track: a retry with the same key and body returns the first answer and sends nothing again' })
  @ApiOkEnvelope(SendResultDto, { description: '`{success: true, data: {emails, timestamp, delivery, note?}}`' })
  @ApiErrors(jsonBodyErrors(SEND_BODY_LIMIT), {
    400: '`INVALID_IDEMPOTENCY_KEY`: the Idempotency-Key is not 1 to 255 visible ASCII characters',
    409: '`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was used with another body',
    403: '`SENDER_DOMAIN_NOT_VERIFIED`: `from` (or the template\'s sender) is not on a verified domain of the project; `SENDER_DOMAIN_DEGRADED`: its domain was verified but the daily DNS re-check found its records gone',
    404: '`TEMPLATE_NOT_FOUND`: `template` names no template of the project',
    422: '`VALIDATION_ERROR`: also bad recipients (more than 50, invalid addresses), sender, refused headers, attachments above 10 MB in total, reserved `data` keys',
  })
  @ApiOperation({
    summary: 'Send an email (secret key)',
    description:
      'Minimal body `{to, subject, body}` or `{to, template}`. Answers `{success: true, data: {emails: [{contact: {id, email}, email: <eml_ id>, status}], timestamp, delivery, note?}}`. ' +
      'Each email is queued and sent by a worker through SMTP_URL (status QUEUED → SENT or FAILED after retries). With SMTP_URL unset the emails are stored (status STORED, `delivery: "stored"`) and not sent. ' +
      'Marketing email (`type: "marketing"`) to an unsubscribed contact is recorded as SUPPRESSED; marketing email carries `List-Unsubscribe` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058). ' +
      'With `template` (a template id of the project) its subject, body and from fill what the request leaves out. An explicit `from` (or the template\'s sender) must be on a verified domain of the project, else 403 `SENDER_DOMAIN_NOT_VERIFIED` (`SENDER_DOMAIN_DEGRADED` when its records vanished since); such mail is DKIM-signed. Without `from` and template the mail goes from the operator\'s configured sender `EMAIL_FROM` (the platform\'s own domain), the project\'s default sender.',
  })
  async send(@CurrentProject() ctx: ProjectContext, @Body() body: SendEmailDto, @Res({ passthrough: true }) res: Response, @Headers('idempotency-key') key?: string, @RequestId() requestId?: string) {
    this.sender.validate(body);
    const result = await this.idempotency.run(ctx.project.id, 'send', key, body, 200, async () => ok(await this.sender.send(ctx.project.id, body, requestId)));
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    else this.sender.committed();
    return result.body;
  }
}
