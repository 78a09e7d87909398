import { ApiProperty } from '@nestjs/swagger';

/** Doc 1's error body. */
export class ErrorDto {
  @ApiProperty({ example: 'media_ids: comment-only field, not allowed for trigger dm' })
  error: string;
}
