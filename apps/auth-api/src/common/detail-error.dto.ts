import { ApiProperty } from '@nestjs/swagger';

/** The error body of both realms: `{detail}` (part B's shape, used by part G too for consistency). */
export class DetailErrorDto {
  @ApiProperty({ example: 'Could not validate credentials', description: 'What went wrong, readable by a person' })
  detail: string;
}
