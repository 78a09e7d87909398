import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import type { User } from '../users.repository';

export class UserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) account_id: string;
  @ApiProperty({ example: 'agent@example.com' }) email: string;
  @ApiProperty({ example: 'Ada Agent' }) name: string;
  @ApiProperty({ example: { id: '…', name: 'agent' }, description: 'The role that grants the permissions' }) role: { id: string; name: string };
  @ApiProperty({ type: [String], example: ['conversations:read', 'conversations:write'] }) permissions: string[];
  @ApiProperty() active: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function userView(u: User): UserDto {
  return {
    id: u.id,
    account_id: u.accountId,
    email: u.email,
    name: u.name,
    role: { id: u.roleId, name: u.roleName },
    permissions: u.permissions,
    active: u.active,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

export class CreateUserDto {
  @ApiProperty({ example: 'agent@example.com' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'Ada Agent' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ minLength: 8, maxLength: 200 })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  password: string;

  @ApiProperty({ format: 'uuid', description: 'A role of the account (GET /api/v1/roles): the built-in `administrator` or `agent`, or a custom role' })
  @IsUUID()
  role_id: string;
}

export class UpdateUserDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  role_id?: string;

  @ApiPropertyOptional({ description: 'false deactivates the user: login and refresh refused, sessions revoked' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}
