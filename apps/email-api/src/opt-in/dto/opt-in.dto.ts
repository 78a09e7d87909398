import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsUUID } from 'class-validator';

/** `doubleOptIn` of PATCH /users/@me/projects/:id: what is given changes. */
export class DoubleOptInSettingsDto {
  @ApiPropertyOptional({
    description:
      'New contacts (POST /v1/track, imports, POST /contacts) and unsubscribed contacts asked to subscribe get a confirmation mail and stay unsubscribed (`optIn: pending`) until they confirm. ' +
      'Turning it on needs `templateId`; turning it off leaves pending contacts pending (their links keep working)',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'The template of the confirmation mail: a template of the project whose sender is on a verified domain (422 `domain_not_verified`). Its subject and body may use `{{confirmUrl}}` ' +
      'and the contact\'s fields; a body without `{{confirmUrl}}` gets a "Confirm my subscription" link appended. null: none (only while `enabled` is false)',
  })
  @IsOptional()
  @IsUUID()
  templateId?: string | null;
}

export class DoubleOptInDto {
  @ApiProperty({ description: 'Double opt-in is on for the project\'s signups' })
  enabled: boolean;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The confirmation mail\'s template; null when none was chosen or it was deleted (then the built-in confirmation mail goes from the platform\'s sender)',
  })
  templateId: string | null;
}
