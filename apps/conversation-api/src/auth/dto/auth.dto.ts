import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  password: string;
}

export class RefreshDto {
  @ApiProperty({ description: 'The refresh token of the last login or refresh (each is good for one refresh)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  refresh_token: string;
}

export class PasswordResetRequestDto {
  @ApiProperty({ example: 'agent@example.com' })
  @IsEmail()
  @MaxLength(254)
  email: string;
}

export class PasswordResetConfirmDto {
  @ApiProperty({ description: 'The token from the reset mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  token: string;

  @ApiProperty({ minLength: 8, maxLength: 200 })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  password: string;
}

export class TokenPairDto {
  @ApiProperty({ description: 'JWT (HS256), valid 15 minutes: send it as `Authorization: Bearer <access_token>`' }) access_token: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type: 'Bearer';
  @ApiProperty({ example: 900, description: 'Seconds the access token stays valid' }) expires_in: number;
  @ApiProperty({ description: 'Opaque, valid 7 days, good for one POST /api/v1/auth/refresh (it returns the next one); using one twice revokes the session' }) refresh_token: string;
  @ApiProperty({ example: 604800 }) refresh_expires_in: number;
}

export class LogoutResultDto {
  @ApiProperty({ description: 'false when the session was already revoked' }) revoked: boolean;
}

export class ResetRequestedDto {
  @ApiProperty({ enum: [true] }) requested: true;
  @ApiProperty({ enum: ['queued', 'unsent'], description: '`queued`: the mail worker sends it (retrying refusals); `unsent`: SMTP_URL is not configured, the mail is stored only' }) mail: 'queued' | 'unsent';
}

export class ResetDoneDto {
  @ApiProperty({ enum: [true] }) reset: true;
}
