import { ApiProperty } from '@nestjs/swagger';

export class TokenResponseDto {
  @ApiProperty({ description: 'RS256 JWT with claims sub (email), iat, exp (24 hours), iss, aud "fiscal", jti; header kid' })
  access_token: string;

  @ApiProperty({ example: 'bearer', enum: ['bearer'] })
  token_type: 'bearer';
}
