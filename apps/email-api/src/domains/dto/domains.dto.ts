import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export class CreateDomainDto {
  @ApiProperty({ example: 'mail.example.com', description: 'The sending domain (lower-cased; a trailing dot is dropped)' })
  @IsString()
  @MaxLength(253)
  @Matches(/^\s*([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}\.?\s*$/, { message: 'domain must be a domain name such as mail.example.com' })
  domain: string;
}

export class DnsRecordDto {
  @ApiProperty({ enum: ['TXT', 'MX', 'CNAME'] })
  type: string;
  @ApiProperty({ description: 'Full host name', example: 'pm1a2b3c4d._domainkey.mail.example.com' })
  name: string;
  @ApiProperty({ example: 'v=DKIM1; k=rsa; p=MIIBIjAN…' })
  value: string;
  @ApiPropertyOptional({ description: 'MX records only', example: 10 })
  priority?: number;
  @ApiProperty({
    enum: ['DKIM', 'SPF', 'RETURN_PATH', 'DMARC', 'INBOUND'],
    description: 'DKIM signature key, SPF of the domain, return path (bounce host: MX and SPF), DMARC advice, INBOUND: the MX that receives the domain\'s mail here (optional; publish it only for a domain whose mail should land in this service)',
  })
  purpose: string;
  @ApiProperty({ description: 'Needed for verification (DMARC is advice, not required)' })
  required: boolean;
}

export class RecordCheckDto {
  @ApiProperty({ enum: ['DKIM', 'SPF', 'RETURN_PATH'] })
  purpose: string;
  @ApiProperty({ enum: ['TXT', 'MX'] })
  type: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ description: 'The record resolves to its value' })
  ok: boolean;
  @ApiProperty({ description: 'What was found, or why the lookup failed (e.g. `no answer within 3000 ms`)' })
  detail: string;
}

export class DomainDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'mail.example.com' })
  domain: string;
  @ApiProperty({ format: 'uuid' })
  projectId: string;
  @ApiProperty({ enum: ['pending', 'verified', 'degraded'], description: 'pending → verified once every required record resolves; verified → degraded when the daily re-check (DOMAIN_RECHECK_SECONDS) finds a record gone (sends from it are refused with 403 SENDER_DOMAIN_DEGRADED), back to verified when it is found again' })
  status: string;
  @ApiProperty({ type: [DnsRecordDto], description: 'The records to publish' })
  records: DnsRecordDto[];
  @ApiProperty({ type: [RecordCheckDto], description: 'Outcome of the last check, one entry per required record (empty before the first)' })
  checks: RecordCheckDto[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastCheckedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  verifiedAt: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}
