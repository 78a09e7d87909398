import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { SigningKeys, type PublicJwk } from './signing-keys';

class JwkDto {
  @ApiProperty({ example: 'RSA' }) kty: string;
  @ApiProperty({ description: 'Key id, the RFC 7638 thumbprint; tokens name it in their `kid` header' }) kid: string;
  @ApiProperty({ example: 'RS256' }) alg: string;
  @ApiProperty({ example: 'sig' }) use: string;
  @ApiProperty({ description: 'RSA modulus (base64url)' }) n: string;
  @ApiProperty({ example: 'AQAB' }) e: string;
}

class JwksDto {
  @ApiProperty({ type: [JwkDto] }) keys: JwkDto[];
}

@ApiTags('keys')
@Controller('.well-known')
export class JwksController {
  constructor(private readonly keys: SigningKeys) {}

  @Get('jwks.json')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Public keys verifying the tokens of both realms',
    description:
      'JSON Web Key Set (RFC 7517). Other services (logistics-hooks with AUTH_JWKS_URL) verify RS256 tokens with it, ' +
      'choosing the key by the token header `kid`, without sharing a secret.',
  })
  @ApiOkResponse({ type: JwksDto })
  jwks(): { keys: PublicJwk[] } {
    return this.keys.jwks();
  }
}
