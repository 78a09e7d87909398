import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One field-level problem of a 422 (`error.errors[]`). */
export class FieldErrorDto {
  @ApiProperty({ example: 'email', description: 'Dotted path of the field (`data.plan`, `attachments.0.filename`; `file` for the CSV upload)' })
  field: string;

  @ApiProperty({ example: 'email must be an email' })
  message: string;

  @ApiProperty({
    example: 'invalid_string',
    description:
      'Machine code: `required`, `invalid_string`, `invalid_type`, `invalid_enum_value`, `invalid_date`, `too_small`, `too_big`, `unrecognized_key`, `too_deep`, `invalid_key`, `reserved_key`, `missing_column`, …',
  })
  code: string;
}

export class ErrorDetailDto {
  @ApiProperty({ example: 'VALIDATION_ERROR', description: 'Machine-readable code; each operation lists the codes it gives' })
  code: string;

  @ApiProperty({ example: 'Validation failed' })
  message: string;

  @ApiProperty({ type: 'integer', example: 422, description: 'The HTTP status, repeated' })
  statusCode: number;

  @ApiProperty({
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    example: '6f1c2a4e-8a0b-4d52-9f3e-2b7c1d9e0a11',
    description: 'A UUID made for the request (or the caller\'s own `X-Request-Id` when it is a token of 1–128 `A-Za-z0-9._:-`); the same value is in the `X-Request-Id` header and the log line of the request',
  })
  requestId: string;

  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Only on validation errors (422 `VALIDATION_ERROR`): one entry per problem' })
  errors?: FieldErrorDto[];

  @ApiProperty({ example: 'Fix the fields listed in error.errors and retry.', description: 'What to do next' })
  suggestion: string;
}

/** The body of every error of this service (EnvelopeErrorFilter of `@platform/errors`). */
export class ErrorEnvelopeDto {
  @ApiProperty({ enum: [false], example: false })
  success: false;

  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;

  @ApiProperty({ format: 'date-time', example: '2026-01-15T10:00:00.000Z' })
  timestamp: string;
}
