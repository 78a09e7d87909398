import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ok } from '@platform/envelopes';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { ProjectAccess } from '../access/project-access.guard';
import { VerifyService } from './verify.service';

export class VerifyEmailDto {
  @ApiProperty({ example: 'someone@gmial.com', description: 'Any string: a malformed address is reported as invalid, not refused' })
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email: string;
}

@ApiTags('Public API')
@Controller('v1')
export class VerifyController {
  constructor(private readonly verifier: VerifyService) {}

  @Post('verify')
  @HttpCode(200)
  @ProjectAccess()
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
