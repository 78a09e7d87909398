import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBase64,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
  IsUUID,
  ValidateIf,
} from 'class-validator';

export class AttachmentDto {
  @ApiProperty({ example: 'invoice.pdf' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(/^[^\r\n/\\]+$/, { message: 'filename must not contain line breaks or slashes' })
  filename: string;

  @ApiProperty({ description: 'File content, base64' })
  @IsString()
  @IsBase64()
  content: string;

  @ApiPropertyOptional({ example: 'application/pdf' })
  @IsOptional()
  @IsString()
  @Matches(/^[\w.+-]+\/[\w.+-]+$/, { message: 'contentType must be a MIME type such as application/pdf' })
  contentType?: string;

  @ApiPropertyOptional({ description: 'Content-ID for inline images (`<img src="cid:...">`)' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  contentId?: string;

  @ApiPropertyOptional({ enum: ['attachment', 'inline'], default: 'attachment' })
  @IsOptional()
  @IsIn(['attachment', 'inline'])
  disposition?: 'attachment' | 'inline';
}

export class SendEmailDto {
  @ApiProperty({
    description: 'One recipient or up to 50: an email string, `{name, email}`, or an array of these. Each recipient gets its own email.',
    oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }],
    example: 'ada@example.com',
  })
  @IsDefined()
  to: unknown;

  @ApiPropertyOptional({ format: 'uuid', description: 'A template of the project: its subject, body and from are used where the request leaves them out' })
  @IsOptional()
  @IsUUID()
  template?: string;

  @ApiPropertyOptional({ maxLength: 998, description: 'Required unless `template` is given. Placeholders `{{field}}`, `{{data.x}}`, `{{x ?? "default"}}` are filled per recipient' })
  @ValidateIf((o: SendEmailDto) => o.template === undefined || o.subject !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject?: string;

  @ApiPropertyOptional({ description: 'HTML body, required unless `template` is given; placeholders as in `subject` (values HTML-escaped), plus `{{unsubscribeUrl}}` and `{{manageUrl}}`' })
  @ValidateIf((o: SendEmailDto) => o.template === undefined || o.body !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(2_000_000)
  body?: string;

  @ApiPropertyOptional({ description: 'Sender: an email or `{name, email}`; default EMAIL_FROM of the service', example: { name: 'Acme', email: 'hello@acme.test' } })
  @IsOptional()
  from?: unknown;

  @ApiPropertyOptional({ description: 'Sender display name (when `from` is a plain email)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[^\r\n]*$/, { message: 'name must not contain line breaks' })
  name?: string;

  @ApiPropertyOptional({ description: 'Reply-To address' })
  @IsOptional()
  @IsEmail()
  reply?: string;

  @ApiPropertyOptional({ description: 'Extra headers (`X-Campaign: spring`); From, To, Subject, List-Unsubscribe and other structural headers are refused' })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ type: [AttachmentDto], maxItems: 10, description: 'At most 10 files, 10 MB in total (decoded)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  // ValidateNested alone lets an array item through (it validates the items of `[[]]`, none).
  @IsObject({ each: true, message: 'each attachment must be an object {filename, content, contentType?, contentId?, disposition?}' })
  @ValidateNested({ each: true })
  @Type(() => AttachmentDto)
  attachments?: AttachmentDto[];

  @ApiPropertyOptional({ description: 'Custom data: merged into each recipient contact (null removes a field) and available to placeholders' })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Subscription state of contacts this send creates (default false); existing contacts change only when given' })
  @IsOptional()
  @IsBoolean()
  subscribed?: boolean;

  @ApiPropertyOptional({
    enum: ['transactional', 'marketing'],
    default: 'transactional',
    description: 'marketing: not sent to unsubscribed contacts (status SUPPRESSED) and carries RFC 8058 one-click List-Unsubscribe headers',
  })
  @IsOptional()
  @IsIn(['transactional', 'marketing'])
  type?: 'transactional' | 'marketing';

  @ApiPropertyOptional({
    default: false,
    description:
      'Transactional mail the recipient asked for (a password reset, a sign-in link): sent even to an address suppressed for a complaint or by hand. ' +
      'A hard-bounced address still gets nothing (it does not exist). Refused (422) with `type: "marketing"`.',
  })
  @IsOptional()
  @IsBoolean()
  bypassSuppression?: boolean;
}
