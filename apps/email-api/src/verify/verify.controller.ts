import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ok } from '@platform/envelopes';
import { ProjectAccess } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/api-errors.decorator';
import { VerifyEmailDto, VerifyResultDto } from './dto/verify.dto';
import { VerifyService } from './verify.service';

@ApiTags('Public API')
@Controller('v1')
export class VerifyController {
  constructor(private readonly verifier: VerifyService) {}

  @Post('verify')
  @HttpCode(200)
  @ProjectAccess()
  @ApiOkEnvelope(VerifyResultDto, { description: '`{success: true, data: {email, valid, formatValid, domain, isDisposable, hasMxRecords, mxRecords, suggestedEmail, reasons}}`' })
  @ApiErrors(JSON_BODY_ERRORS)
  @ApiOperation({
    summary: 'Check an address (secret key)',
    description:
      'Answers `{success: true, data: {email, valid, formatValid, domain, isDisposable, hasMxRecords, mxRecords: [{exchange, priority}], suggestedEmail, reasons: [string]}}`. ' +
      '`valid` = well-formed, MX records present (a null MX counts as none) and not a disposable domain. MX records come from DNS_SERVERS, or the system resolver. ' +
      'Disposable domains: the community-maintained list of the `disposable-email-domains-js` package (parent domains match too). ' +
      '`suggestedEmail`: the address with a common provider domain within edit distance 1–2 (`gmial.com` → `gmail.com`) or a mistyped TLD (`.cmo` → `.com`).',
  })
  async verify(@Body() body: VerifyEmailDto) {
    return ok(await this.verifier.verify(body.email));
  }
}
