import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import type { CannedResponse } from '../canned-responses.repository';

const SHORT_CODE = /^[A-Za-z0-9_-]+$/;

export class CannedResponseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'greet', description: 'What an agent types after `/` to pick it' }) short_code: string;
  @ApiProperty({ example: 'Hi {{contact.first_name}}, thanks for writing to {{account.name}}!' }) content: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const cannedView = (c: CannedResponse): CannedResponseDto => ({
  id: c.id,
  short_code: c.shortCode,
  content: c.content,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});

export class CreateCannedResponseDto {
  @ApiProperty({ example: 'greet', description: 'Letters, digits, `_` and `-`; unique in the account without regard to case' })
  @IsString()
  @MaxLength(50)
  @Matches(SHORT_CODE, { message: 'short_code may hold letters, digits, _ and - only' })
  short_code: string;

  @ApiProperty({
    example: 'Hi {{contact.first_name}}, thanks for writing to {{account.name}}!',
    description:
      'Variables: {{contact.name}}, {{contact.first_name}}, {{contact.last_name}}, {{contact.email}}, {{contact.phone}}, {{contact.custom_attribute.<key>}}, {{agent.name}}, {{agent.email}}, {{conversation.id}}, {{account.name}}; others are refused (422). Missing values render as nothing.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  content: string;
}

export class UpdateCannedResponseDto {
  @ApiPropertyOptional({ example: 'greet' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  @Matches(SHORT_CODE, { message: 'short_code may hold letters, digits, _ and - only' })
  short_code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  content?: string;
}

export class ListCannedResponsesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Short codes starting with it, or texts holding it (case-insensitive)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  q?: string;
}

export class RenderQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The conversation whose contact fills the variables' })
  @IsUUID()
  conversation_id: string;
}

export class RenderedCannedResponseDto {
  @ApiProperty({ example: 'Hi Kim, thanks for writing to Acme!' }) content: string;
}
