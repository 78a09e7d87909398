import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'email' }) field: string;
  @ApiProperty({ example: 'email must be an email' }) message: string;
  @ApiProperty({ example: 'invalid_string' }) code: string;
}

export class ErrorDetailDto {
  @ApiProperty({
    example: 'VALIDATION_ERROR',
    description:
      'Machine code: `VALIDATION_ERROR` (422), `BAD_REQUEST`, `UNAUTHORIZED`, `INVALID_CREDENTIALS`, `INVALID_REFRESH_TOKEN`, `REFRESH_TOKEN_REUSED`, `INVALID_RESET_TOKEN`, ' +
      '`FORBIDDEN` (a permission missing), `NOT_FOUND` and `<THING>_NOT_FOUND`, `CONFLICT`, `INVALID_SIGNATURE`, `CHANNEL_NOT_FOUND`, `PROVIDER_ERROR`, `THROTTLER_LIMIT_EXCEEDED` (429), `INTERNAL_ERROR`',
  })
  code: string;

  @ApiProperty({ example: 'Validation failed' }) message: string;
  @ApiProperty({ type: 'integer', example: 422 }) statusCode: number;
  @ApiProperty({ example: '6f1c2a4e-8a0b-4d52-9f3e-2b7c1d9e0a11', description: 'Same as the `X-Request-Id` response header' }) requestId: string;
  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Validation errors only' }) errors?: FieldErrorDto[];
  @ApiProperty({ example: 'Fix the fields listed in error.errors and retry.', description: 'What to do next' }) suggestion: string;
}

/** Every error of this service: `{success: false, error: {code, message, …}, timestamp}`. */
export class ErrorEnvelopeDto {
  @ApiProperty({ enum: [false] }) success: false;
  @ApiProperty({ type: ErrorDetailDto }) error: ErrorDetailDto;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
}
