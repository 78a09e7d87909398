import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { AutomationInputDto } from '../../automations/dto/automation-input.dto';
import { AutomationDto } from '../../automations/dto/automation.dto';
import { ImportContactDto } from '../../contacts/dto/contact.dto';

export class ImportRequestDto {
  @ApiProperty({ description: 'Name of the tool the data comes from (kept as imported_from)', example: 'manychat' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(/^[\w .-]+$/, { message: 'source must contain only letters, digits, spaces, dots, dashes and underscores' })
  source: string;

  @ApiPropertyOptional({ type: [AutomationInputDto], description: 'Created as drafts with origin import and transition_mode on' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => AutomationInputDto)
  automations?: AutomationInputDto[];

  @ApiPropertyOptional({ type: [ImportContactDto], description: 'Merged by ig_id: existing values win, tags are united' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => ImportContactDto)
  contacts?: ImportContactDto[];
}

export class ImportContactsResultDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
}

export class ImportResultDto {
  @ApiProperty({ type: [AutomationDto] }) automations: AutomationDto[];
  @ApiProperty({ type: ImportContactsResultDto }) contacts: ImportContactsResultDto;
  @ApiProperty({ type: [String] }) notes: string[];
}
