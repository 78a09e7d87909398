import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PROJECT_ROLES, type ProjectRole } from '../../access/roles';

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
