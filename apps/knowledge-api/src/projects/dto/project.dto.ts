import { IsOptionalNotNull } from './optional';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateBy,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { IsTagList } from '../../common/tags.decorator';

/** An array of source ids or `{source_id, title?}` objects (at most 100). */
export function IsSourceRefList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSourceRefList',
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) &&
          value.length <= 100 &&
          value.every((v) =>
            typeof v === 'string'
              ? v.trim().length > 0 && v.length <= 300
              : !!v &&
                typeof v === 'object' &&
                !Array.isArray(v) &&
                typeof (v as { source_id?: unknown }).source_id === 'string' &&
                ((v as { source_id: string }).source_id.trim().length > 0) &&
                ((v as { title?: unknown }).title === undefined || typeof (v as { title?: unknown }).title === 'string') &&
                Object.keys(v).every((k) => k === 'source_id' || k === 'title'),
          ),
        defaultMessage: (args) => `${args?.property ?? 'sources'} must be an array (at most 100) of source ids or {source_id, title?} objects`,
      },
    },
    options,
  );
}

export class FeatureDto {
  @ApiPropertyOptional({ description: 'Generated (a UUID) when omitted.' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  id?: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  name!: string;

  @ApiPropertyOptional({ default: '' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @ApiPropertyOptional({ example: 'high' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(50)
  priority?: string;

  @ApiPropertyOptional({ default: 'planned', example: 'in_progress' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(50)
  status?: string;
}

export class DocInputDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Generated when omitted.' })
  @IsOptionalNotNull()
  @IsUUID()
  id?: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, default: {} })
  @IsOptionalNotNull()
  @IsObject()
  content?: Record<string, unknown>;

  @ApiProperty({ example: 'spec', description: 'Free text: `prd`, `spec`, `design`, `note`, `api`, …' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  document_type!: string;

  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  author?: string;
}

const SOURCES_DOC = 'Knowledge source ids, or `{source_id, title?}` objects (the title is the source\'s own; a given one is ignored). Each must exist: 400 naming the unknown ones.';

class ProjectFieldsDto {
  @ApiPropertyOptional({ default: '' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(20_000)
  description?: string;

  @ApiPropertyOptional({ example: 'https://github.com/acme/app' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  github_repo?: string | null;

  @ApiPropertyOptional({ default: 'blue' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(30)
  color?: string;

  @ApiPropertyOptional({ default: 'Briefcase' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  icon?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The product requirements document; on creation also stored as a `prd` document in `docs`.' })
  @IsOptionalNotNull()
  @IsObject()
  prd?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [FeatureDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => FeatureDto)
  features?: FeatureDto[];

  @ApiPropertyOptional({ type: [DocInputDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => DocInputDto)
  docs?: DocInputDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, default: {}, description: 'Any JSON object of your own.' })
  @IsOptionalNotNull()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', properties: { source_id: { type: 'string' }, title: { type: 'string' } } }] }, description: SOURCES_DOC })
  @IsOptionalNotNull()
  @IsSourceRefList()
  technical_sources?: Array<string | { source_id: string; title?: string }>;

  @ApiPropertyOptional({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', properties: { source_id: { type: 'string' }, title: { type: 'string' } } }] }, description: SOURCES_DOC })
  @IsOptionalNotNull()
  @IsSourceRefList()
  business_sources?: Array<string | { source_id: string; title?: string }>;

  @ApiPropertyOptional({ default: false })
  @IsOptionalNotNull()
  @IsBoolean()
  pinned?: boolean;
}

export class CreateProjectDto extends ProjectFieldsDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title!: string;
}

export class UpdateProjectDto extends ProjectFieldsDto {
  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title?: string;
}

export class ProjectCreationStartedDto {
  @ApiProperty({ format: 'uuid' }) progress_id!: string;
  @ApiProperty({ example: 'started' }) status!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ format: 'uuid', description: 'The id the project will have (not shown in the spec).' }) project_id!: string;
}
