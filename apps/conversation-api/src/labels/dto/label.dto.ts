import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import type { Label } from '../labels.repository';

const NAME = /^[\p{L}\p{N}_-][\p{L}\p{N} _.-]*$/u;

export class LabelDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'billing' }) name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ example: '#1f93ff' }) color: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const labelView = (l: Label): LabelDto => ({
  id: l.id,
  name: l.name,
  description: l.description,
  color: l.color,
  created_at: l.createdAt.toISOString(),
  updated_at: l.updatedAt.toISOString(),
});

export class CreateLabelDto {
  @ApiProperty({ example: 'billing', description: 'Unique in the account without regard to case; letters, digits, spaces, `_`, `-` and `.`' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(NAME, { message: 'name may hold letters, digits, spaces, _ - and . (not first)' })
  name: string;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiPropertyOptional({ example: '#1f93ff', description: 'Hex colour; default #1f93ff' })
  @IsOptional()
  @Matches(/^#[0-9a-fA-F]{6}$/, { message: 'color must be a hex colour such as #1f93ff' })
  color?: string;
}

export class UpdateLabelDto {
  @ApiPropertyOptional({ example: 'billing' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(NAME, { message: 'name may hold letters, digits, spaces, _ - and . (not first)' })
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiPropertyOptional({ example: '#1f93ff' })
  @IsOptional()
  @Matches(/^#[0-9a-fA-F]{6}$/, { message: 'color must be a hex colour such as #1f93ff' })
  color?: string;
}
