import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * OAuth2 password-grant form (`application/x-www-form-urlencoded`). `grant_type`, `scope`,
 * `client_id` and `client_secret` are accepted (and ignored) so standard OAuth2 clients and the
 * Swagger "Authorize" dialog work.
 */
export class LoginFormDto {
  @ApiProperty({ description: 'The user email', example: 'admin@example.com' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  username: string;

  @ApiProperty({ format: 'password', example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ enum: ['password'] })
  @IsOptional()
  @IsIn(['password'])
  grant_type?: string;

  @ApiPropertyOptional({ description: 'Ignored' })
  @IsOptional()
  @IsString()
  scope?: string;

  @ApiPropertyOptional({ description: 'Ignored' })
  @IsOptional()
  @IsString()
  client_id?: string;

  @ApiPropertyOptional({ description: 'Ignored' })
  @IsOptional()
  @IsString()
  client_secret?: string;
}
