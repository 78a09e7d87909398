import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_INT4 } from '../../common/id.pipe';
import { PreviewStepDto } from '../../automations/dto/automation.dto';
import { TRIGGERS, type Trigger } from '../../automations/entities/automation.entity';

export class PreviewRequestDto {
  @ApiProperty({ description: 'The comment, message or story reply text', example: 'Send me the GUIDE please' })
  @IsString()
  @MaxLength(5000)
  text: string;

  @ApiPropertyOptional({ enum: TRIGGERS, default: 'comment' })
  @IsOptional()
  @IsIn(TRIGGERS)
  trigger?: Trigger;

  @ApiPropertyOptional({ description: 'Comment trigger: the post (id from GET /posts). Without it only automations for all posts match' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  media_id?: string;

  @ApiPropertyOptional({ default: 'username', description: 'Fills {username}' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  username?: string;

  @ApiPropertyOptional({ description: 'Only this automation, whatever its status (test a draft before go_live)' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT4)
  automation_id?: number;

  @ApiPropertyOptional({ default: false, description: 'Also consider drafts (by default only automations that answer now)' })
  @IsOptional()
  @IsBoolean()
  include_drafts?: boolean;
}

export class PreviewMatchDto {
  @ApiProperty() automation_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true, description: 'Keyword that matched (null for match_mode any)' }) keyword: string | null;
  @ApiProperty() match_mode: string;
  @ApiProperty() priority: number;
  @ApiProperty() status: string;
  @ApiProperty({ type: [Number], description: 'Other automations that matched but lost on priority (highest first)' }) also_matched: number[];
}

export class PreviewDto {
  @ApiProperty({ type: PreviewMatchDto, nullable: true, description: 'The automation that would react, or null' }) match: PreviewMatchDto | null;
  @ApiProperty({ type: [PreviewStepDto], description: 'The exact messages it would send, in order, {username} filled' }) steps: PreviewStepDto[];
}
