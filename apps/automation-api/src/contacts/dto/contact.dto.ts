import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { CursorPageQueryDto } from '../../common/cursor-page-query.dto';

export class ContactDto {
  @ApiProperty() ig_id: string;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: Number, nullable: true, enum: [0, 1], description: '1 follows, 0 does not, null unknown' }) follows: number | null;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) notes: string | null;
  @ApiProperty() comment_count: number;
  @ApiProperty() dm_count: number;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) first_seen_at: string;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) last_seen_at: string;
  @ApiProperty({ type: String, nullable: true }) last_inbound_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Origin, for example `import:<tool>` or `link_clicked:YYYY-MM-DD` (the day of the last tracked click)' }) source: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Tool an imported contact came from' }) imported_from: string | null;
}

export class ContactPageDto {
  @ApiProperty({ type: [ContactDto], description: 'Newest contacts first' }) data: ContactDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' }) next_cursor: string | null;
}

export class ListContactsQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive search in username, name, email and ig_id' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ description: 'Only contacts with this tag' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  tag?: string;
}

/** What a person's record carries from whoever manages it: tags and notes (PATCH and import). */
class ContactAnnotationsDto {
  @ApiPropertyOptional({ type: [String], maxItems: 100, description: 'Tags of the contact (at most 100; a PATCH replaces the stored ones)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  tags?: string[];

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  notes?: string | null;
}

export class UpdateContactDto extends ContactAnnotationsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'ann@example.com' })
  @IsOptional()
  @IsEmail()
  email?: string | null;
}

/** A contact from another tool (POST /automations/import). */
export class ImportContactDto extends ContactAnnotationsDto {
  @ApiProperty({ description: 'Instagram-scoped id of the person' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  ig_id: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  username?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsEmail()
  email?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true, enum: [0, 1] })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsIn([0, 1])
  follows?: number | null;
}
