import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { CursorQueryDto } from '../../common/list-query.dto';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../suppression';

const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class ListSuppressionsQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive substring of the address' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  search?: string;
}

export class AddSuppressionDto {
  @ApiProperty({ example: 'ada@example.com' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({ enum: SUPPRESSION_REASONS, default: 'manual', description: 'Why the address is suppressed (default `manual`)' })
  @IsOptional()
  @IsIn(SUPPRESSION_REASONS)
  reason?: SuppressionReason;
}

export class EmailParamDto {
  @ApiProperty({ example: 'ada@example.com' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email: string;
}

export class SuppressionDto {
  @ApiProperty({ example: 'ada@example.com', description: 'Lower-case address' })
  email: string;

  @ApiProperty({ enum: SUPPRESSION_REASONS })
  reason: SuppressionReason;

  @ApiProperty({
    example: 'smtp-dsn',
    description: 'Where the entry came from: `api` (POST /suppressions), `unsubscribe-link`, `soft-bounce-escalation`, or the report that carried the bounce or complaint (`smtp-dsn`, `smtp-arf`, `ses`, `smtp` for a 5xx refusal at send time)',
  })
  source: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class SuppressionPageDto extends CursorPageDto(SuppressionDto) {}
