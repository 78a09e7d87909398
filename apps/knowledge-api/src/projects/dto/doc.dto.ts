import { IsOptionalNotNull } from './optional';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsUUID, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { IsTagList } from '../../common/tags.decorator';
import { VERSIONED_FIELDS, type VersionedField } from '../projects.types';

export class CreateDocDto {
  @ApiProperty({ example: 'spec' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  document_type!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, default: {} })
  @IsOptionalNotNull()
  @IsObject()
  content?: Record<string, unknown>;

  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  author?: string;
}

export class UpdateDocDto {
  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  document_type?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptionalNotNull()
  @IsObject()
  content?: Record<string, unknown>;

  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  author?: string;
}

export class ListVersionsQueryDto {
  @ApiPropertyOptional({ enum: VERSIONED_FIELDS })
  @IsOptional()
  @IsIn(VERSIONED_FIELDS)
  field_name?: VersionedField;

  @ApiPropertyOptional({ description: 'Versions of this document only.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  document_id?: string;
}

export class CreateVersionDto {
  @ApiProperty({ enum: VERSIONED_FIELDS })
  @IsIn(VERSIONED_FIELDS)
  field_name!: VersionedField;

  @ApiProperty({ description: 'The JSON to keep (the field\'s content, or one document when document_id is given).' })
  @IsDefined()
  content!: unknown;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  change_summary?: string;

  @ApiPropertyOptional({ description: 'A document of the project (field_name `docs`).' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  document_id?: string;

  @ApiPropertyOptional({ default: 'system' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  created_by?: string;
}

export class RestoreVersionDto {
  @ApiPropertyOptional({ default: 'system' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  restored_by?: string;
}

export class VersionParamsDto {
  @IsUUID()
  project_id!: string;

  @IsIn(VERSIONED_FIELDS)
  field_name!: VersionedField;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  version_number!: number;
}
