import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const LINK = /^[A-Za-z0-9_-]{20,100}$/;

/** `?link=` of the connect page, and the form field of "Connect". */
export class ConnectLinkDto {
  @ApiProperty({ description: 'The secret of a connect link printed by `create-account` or `connect-account`' })
  @IsString()
  @Matches(LINK, { message: 'link must be the secret of a connect link' })
  link: string;
}

/** What the platform's authorization window appends to the redirect URI. */
export class ConnectCallbackDto {
  @ApiPropertyOptional({ description: 'Authorization code (a trailing `#_` is ignored)' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  code?: string;

  @ApiPropertyOptional({ description: 'The state sent to the authorization window' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  state?: string;

  @ApiPropertyOptional({ description: 'Set when the person cancelled (`access_denied`)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  error?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  error_reason?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  error_description?: string;
}
