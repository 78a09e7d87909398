import { ApiProperty } from '@nestjs/swagger';

/** Result of the MCP tool `refresh_token`: the stored expiry, as GET /status shows it. */
export class TokenRefreshDto {
  @ApiProperty({ enum: ['connected', 'not_connected', 'token_invalid', 'token_expired', 'sandbox'] }) account_status: string;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601' }) token_expires_at: string | null;
  @ApiProperty({ type: Number, nullable: true }) token_expires_in_days: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601' }) token_refreshed_at: string | null;
}
