import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

const PLACEHOLDERS = 'Placeholders `{{email}}`, `{{name ?? "default"}}`, `{{data.x}}`, `{{unsubscribeUrl}}`, `{{manageUrl}}` are filled per recipient (values HTML-escaped in the body).';

export class CreateTemplateDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiProperty({ maxLength: 998, description: PLACEHOLDERS })
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject: string;

  @ApiProperty({ description: `HTML. ${PLACEHOLDERS}` })
  @IsString()
  @MinLength(1)
  @MaxLength(2_000_000)
  body: string;

  @ApiProperty({ example: 'news@mail.example.com', description: 'Sender address on a verified domain of the project (else 422, code `domain_not_verified`)' })
  @IsEmail()
  @MaxLength(254)
  from: string;
}

export class UpdateTemplateDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ maxLength: 998 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(2_000_000)
  body?: string;

  @ApiPropertyOptional({ description: 'On a verified domain of the project' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  from?: string;
}

export class TemplateDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty()
  subject: string;
  @ApiProperty()
  body: string;
  @ApiProperty()
  from: string;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

class UsageCampaignDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ enum: ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] })
  status: string;
}

class UsageWorkflowStepDto {
  @ApiProperty({ format: 'uuid', description: 'The workflow' })
  id: string;
  @ApiProperty({ description: 'The workflow\'s name' })
  name: string;
  @ApiProperty({ description: 'Whether the workflow is enabled' })
  enabled: boolean;
  @ApiProperty({ format: 'uuid', description: 'The SEND_EMAIL step sending the template' })
  stepId: string;
  @ApiProperty()
  stepName: string;
}

export class TemplateUsageDto {
  @ApiProperty({ type: [UsageCampaignDto], description: 'Campaigns made from the template (`templateId`)' })
  campaigns: UsageCampaignDto[];

  @ApiProperty({ type: [UsageWorkflowStepDto], description: 'Workflow SEND_EMAIL steps sending the template, one entry per step (enabled or not: any of them blocks the template\'s deletion)' })
  workflows: UsageWorkflowStepDto[];
}
