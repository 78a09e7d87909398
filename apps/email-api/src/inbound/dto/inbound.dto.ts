import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { CursorQueryDto } from '../../common/list-query.dto';

export class ListInboundQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ pattern: '^eml_[0-9a-z]{20}$', description: 'Only the replies to this sent mail' })
  @IsOptional()
  @Matches(/^eml_[0-9a-z]{20}$/, { message: 'emailId must be an email id (eml_…)' })
  emailId?: string;
}

class AddressDto {
  @ApiProperty({ type: String, nullable: true })
  email: string | null;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;
}

class EnvelopeDto {
  @ApiProperty({ description: 'MAIL FROM; empty for the null sender' })
  mailFrom: string;

  @ApiProperty({ type: [String], description: 'RCPT TO addresses of this project\'s domains (and others in the same delivery)' })
  rcptTo: string[];

  @ApiProperty({ type: String, nullable: true })
  remoteAddress: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The EHLO/HELO name of the sending server' })
  helo: string | null;
}

class HeaderDto {
  @ApiProperty()
  name: string;

  @ApiProperty()
  value: string;
}

class AttachmentDto {
  @ApiProperty({ type: String, nullable: true })
  filename: string | null;

  @ApiProperty()
  contentType: string;

  @ApiProperty({ type: 'integer' })
  size: number;

  @ApiProperty({ description: 'SHA-256 of the content, hex' })
  checksum: string;
}

const RESULT = { description: 'pass, fail, softfail, neutral, none, temperror, permerror, policy' };

class SpfDto {
  @ApiProperty(RESULT)
  result: string;

  @ApiProperty({ type: String, nullable: true, description: 'The domain checked (MAIL FROM, or the HELO name for the null sender)' })
  domain: string | null;
}

class DkimDto {
  @ApiProperty(RESULT)
  result: string;

  @ApiProperty({ type: String, nullable: true, description: 'd= of the signature' })
  domain: string | null;

  @ApiProperty({ type: String, nullable: true, description: 's= of the signature' })
  selector: string | null;

  @ApiProperty({ description: 'The signing domain is aligned with the From domain (DMARC)' })
  aligned: boolean;
}

class DmarcDto {
  @ApiProperty(RESULT)
  result: string;

  @ApiProperty({ type: String, nullable: true, description: 'The From domain' })
  domain: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The published policy (none, quarantine, reject)' })
  policy: string | null;
}

class AuthDto {
  @ApiProperty({ type: SpfDto })
  spf: SpfDto;

  @ApiProperty({ type: [DkimDto], description: 'One entry per signature (`none` when unsigned)' })
  dkim: DkimDto[];

  @ApiProperty({ type: DmarcDto })
  dmarc: DmarcDto;

  @ApiProperty({ description: 'The Authentication-Results (and Received-SPF) header fields of the checks, RFC 8601' })
  header: string;
}

export class InboundMessageDto {
  @ApiProperty({ pattern: '^inb_[0-9a-z]{20}$' })
  id: string;

  @ApiProperty({ type: String, nullable: true, description: 'Message-ID without angle brackets' })
  messageId: string | null;

  @ApiProperty({ type: String, nullable: true })
  inReplyTo: string | null;

  @ApiProperty({ type: String, nullable: true, pattern: '^eml_[0-9a-z]{20}$', description: 'The project\'s sent mail this replies to (In-Reply-To, else References)' })
  emailId: string | null;

  @ApiProperty({ type: AddressDto })
  from: AddressDto;

  @ApiProperty({ type: [String], description: 'To and Cc addresses' })
  to: string[];

  @ApiProperty({ type: EnvelopeDto })
  envelope: EnvelopeDto;

  @ApiProperty({ type: String, nullable: true })
  subject: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The text body (null in lists)' })
  text: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The HTML body as received, not sanitised (null in lists)' })
  html: string | null;

  @ApiProperty({ type: [HeaderDto], description: 'Every header field in order (empty in lists)' })
  headers: HeaderDto[];

  @ApiProperty({ type: [AttachmentDto], description: 'The files are kept under DATA_DIR' })
  attachments: AttachmentDto[];

  @ApiProperty({ type: AuthDto })
  auth: AuthDto;

  @ApiProperty({ type: 'integer', description: 'Bytes as received' })
  size: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;
}

export class InboundMessagePageDto extends CursorPageDto(InboundMessageDto) {}
