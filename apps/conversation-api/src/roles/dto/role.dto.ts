import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { Role } from '../roles.repository';
import { PERMISSION_NAMES } from '../../access/permissions';

export class RoleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'supervisor' }) name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: [String], enum: PERMISSION_NAMES, isArray: true }) permissions: string[];
  @ApiProperty({ description: '`administrator` and `agent`: not editable, not deletable' }) built_in: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const roleView = (r: Role): RoleDto => ({
  id: r.id,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  built_in: r.builtIn,
  created_at: r.createdAt.toISOString(),
});

export class PermissionDto {
  @ApiProperty({ example: 'conversations:write' }) name: string;
  @ApiProperty() description: string;
}

export class CreateRoleDto {
  @ApiProperty({ example: 'supervisor', pattern: '^[a-z0-9][a-z0-9_-]{0,49}$' })
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9_-]{0,49}$/, { message: 'name must be 1-50 lowercase letters, digits, _ or -' })
  name: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiProperty({ type: [String], enum: PERMISSION_NAMES, isArray: true })
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(PERMISSION_NAMES.length)
  @IsIn(PERMISSION_NAMES, { each: true })
  permissions: string[];
}

export class UpdateRoleDto {
  @ApiPropertyOptional({ pattern: '^[a-z0-9][a-z0-9_-]{0,49}$' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9_-]{0,49}$/, { message: 'name must be 1-50 lowercase letters, digits, _ or -' })
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ type: [String], enum: PERMISSION_NAMES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSION_NAMES, { each: true })
  permissions?: string[];
}
