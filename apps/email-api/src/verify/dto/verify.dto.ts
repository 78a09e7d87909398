import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class VerifyEmailDto {
  @ApiProperty({ example: 'someone@gmial.com', description: 'Any string: a malformed address is reported as invalid, not refused' })
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email: string;
}

class MxRecordDto {
  @ApiProperty({ example: 'gmail-smtp-in.l.google.com' })
  exchange: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 65535, example: 5 })
  priority: number;
}

/** `data` of POST /v1/verify (`VerifyResult`). */
export class VerifyResultDto {
  @ApiProperty({ example: 'someone@gmial.com', description: 'The address checked: trimmed and lower-cased' })
  email: string;

  @ApiProperty({ description: '`formatValid` and `hasMxRecords` and not `isDisposable`' })
  valid: boolean;

  @ApiProperty({ description: 'Well-formed (at most 254 characters, a TLD)' })
  formatValid: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'gmial.com', description: 'The part after the last `@`; null without one' })
  domain: string | null;

  @ApiProperty({ description: 'The domain (or a parent domain) is on the disposable-domain list' })
  isDisposable: boolean;

  @ApiProperty({ description: 'The domain has MX records (a null MX counts as none); false when the format is invalid (no lookup)' })
  hasMxRecords: boolean;

  @ApiProperty({ type: [MxRecordDto], description: 'As the DNS answered; empty without records' })
  mxRecords: MxRecordDto[];

  @ApiProperty({ type: String, nullable: true, example: 'someone@gmail.com', description: 'The address with the likely intended domain when a typo is detected' })
  suggestedEmail: string | null;

  @ApiProperty({
    type: [String],
    example: ['Possible typo detected: did you mean gmail.com?'],
    description: 'Why the address is not valid or looks wrong, in plain words; empty for a clean address',
  })
  reasons: string[];
}
