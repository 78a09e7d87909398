import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class LogisticsLoginDto {
  @ApiProperty({ example: 'dispatch@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @ApiProperty({ format: 'password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class RefreshRequestDto {
  @ApiProperty({ description: 'The opaque refresh token from login or the previous refresh' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  refresh_token: string;
}

export class LogoutRequestDto {
  @ApiPropertyOptional({ description: 'Refresh token whose family (login session) is revoked' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  refresh_token?: string;
}

export class LogisticsTokenResponseDto {
  @ApiProperty({
    description:
      'RS256 JWT, 1 hour. Claims: sub (user id), email, role, realm "logistics", sid (session), iat, exp, iss, aud "logistics", jti; header kid (see /.well-known/jwks.json)',
  })
  access_token: string;

  @ApiProperty({ description: 'Opaque refresh token, valid 7 days, usable once (each refresh returns the next one)' })
  refresh_token: string;

  @ApiProperty({ enum: ['bearer'], example: 'bearer' })
  token_type: 'bearer';

  @ApiProperty({ example: 3600, description: 'Lifetime of the access token in seconds' })
  expires_in: number;
}
