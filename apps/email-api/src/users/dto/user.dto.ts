import { ApiProperty } from '@nestjs/swagger';
import { OAUTH_PROVIDERS } from '../../oauth/oauth-providers';

/** An account as the API shows it (`userView`): never the password hash. */
export class UserDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'owner@example.com', description: 'Lower-case' })
  email: string;

  @ApiProperty({ type: String, nullable: true, example: 'Ada Lovelace' })
  name: string | null;

  @ApiProperty({ description: 'The address was confirmed (POST /auth/verify-email, or by the OAuth provider)' })
  emailVerified: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

/** Answers that only confirm what happened. */
export class MessageDto {
  @ApiProperty({ example: 'Email verified' })
  message: string;
}

export class OAuthConfigDto {
  @ApiProperty({ enum: [true], description: 'Email and password login (POST /auth/login) is always offered' })
  password: true;

  @ApiProperty({ description: 'POST /auth/signup is open (false when DISABLE_SIGNUPS is set)' })
  signupsEnabled: boolean;

  @ApiProperty({ enum: OAUTH_PROVIDERS, isArray: true, description: 'The OAuth providers configured on this server; a login starts at GET /auth/oauth/{provider}' })
  providers: string[];
}
