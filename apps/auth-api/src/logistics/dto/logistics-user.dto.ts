import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { realmUserFields } from '../../common/realm-user.view';
import { LOGISTICS_ROLES, type LogisticsRole, type LogisticsUser } from '../entities/logistics-user.entity';

export class LogisticsUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'driver@example.com' }) email: string;
  @ApiProperty({ nullable: true, type: String }) full_name: string | null;
  @ApiProperty({ enum: LOGISTICS_ROLES }) role: LogisticsRole;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;

  static from(user: LogisticsUser): LogisticsUserDto {
    return { id: user.id, ...realmUserFields(user) };
  }
}

export class CreateLogisticsUserDto {
  @ApiProperty({ example: 'driver@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @ApiProperty({ format: 'password', minLength: 8 })
  @IsString()
  @MinLength(8)
  @MaxLength(1024)
  password: string;

  @ApiProperty({ enum: LOGISTICS_ROLES })
  @IsIn(LOGISTICS_ROLES, { message: `role must be one of: ${LOGISTICS_ROLES.join(', ')}` })
  role: LogisticsRole;

  @ApiPropertyOptional({ example: 'Dana Driver' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  full_name?: string;
}

export class ListUsersQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page = 1;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;
}

export class LogisticsUserPageDto {
  @ApiProperty({ type: [LogisticsUserDto] }) items: LogisticsUserDto[];
  @ApiProperty({ example: 42, description: 'Number of users in all pages' }) total: number;
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 20 }) limit: number;
}
