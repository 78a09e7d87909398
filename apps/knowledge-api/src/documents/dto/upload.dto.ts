import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { KNOWLEDGE_TYPES } from '../../sources/sources.types';

export class UploadFormDto {
  @ApiProperty({ type: 'string', format: 'binary', description: '.pdf ≤ 50 MB, .docx/.doc ≤ 25 MB, .md/.txt ≤ 10 MB' })
  file?: unknown;

  @ApiPropertyOptional({ enum: KNOWLEDGE_TYPES, default: 'technical' })
  @IsOptional()
  @IsIn(KNOWLEDGE_TYPES)
  knowledge_type?: (typeof KNOWLEDGE_TYPES)[number];

  @ApiPropertyOptional({ description: 'JSON array of strings, e.g. ["docs","api"]', example: '["docs"]' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  tags?: string;
}

export class DocumentDto {
  @ApiProperty({ description: 'The source id of the document: `file:<file name>` (uploading the name again replaces it).' }) id!: string;
  @ApiProperty() filename!: string;
  @ApiProperty({ enum: KNOWLEDGE_TYPES }) knowledge_type!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ description: 'bytes' }) file_size!: number;
  @ApiProperty() chunks_created!: number;
  @ApiProperty({ description: 'seconds' }) processing_time!: number;
  @ApiProperty() created_at!: string;
}

export class UploadResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ description: 'the upload job (its progress stays readable for PROGRESS_RETENTION_HOURS)' }) progress_id!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: DocumentDto }) document!: DocumentDto;
}

export class PendingDocumentDto extends OmitType(DocumentDto, ['chunks_created', 'processing_time'] as const) {}

export class UploadAcceptedDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ description: 'follow it: GET /api/progress/{progress_id}, or Socket.IO `/crawl` `subscribe`' }) progress_id!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: PendingDocumentDto }) document!: PendingDocumentDto;
}
