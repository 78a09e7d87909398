import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { PROJECT_ROLES, type ProjectRole } from '../../access/roles';
import { DoubleOptInSettingsDto } from '../../opt-in/dto/opt-in.dto';

export class CreateProjectDto {
  @ApiProperty({ example: 'My product' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;
}

export class UpdateProjectDto {
  @ApiPropertyOptional({ example: 'My product' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Open and click tracking of mail queued from now on (the pixel and rewritten links); default true' })
  @IsOptional()
  @IsBoolean()
  trackingEnabled?: boolean;

  @ApiPropertyOptional({
    type: DoubleOptInSettingsDto,
    description: 'Double opt-in of the project\'s signups `{enabled?, templateId?}` (fields left out keep their value); see the README\'s "Double opt-in"',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DoubleOptInSettingsDto)
  doubleOptIn?: DoubleOptInSettingsDto;
}

export class ResetProjectDto {
  @ApiProperty({ description: 'The exact project name, confirming the irreversible wipe' })
  @IsString()
  @MaxLength(100)
  confirm: string;
}

export class AddMemberDto {
  @ApiProperty({ description: 'Email of an existing account' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsEmail()
  email: string;

  @ApiPropertyOptional({ enum: PROJECT_ROLES, default: 'MEMBER' })
  @IsOptional()
  @IsIn(PROJECT_ROLES)
  role?: ProjectRole;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: PROJECT_ROLES })
  @IsIn(PROJECT_ROLES)
  role: ProjectRole;
}
