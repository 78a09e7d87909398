import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/**
 * The spec's cursor page `{data, cursor, hasMore, total}` of `Item` (see common/pagination.ts):
 * `export class ContactPageDto extends CursorPageDto(ContactDto) {}` names the schema.
 */
export function CursorPageDto<T>(item: Type<T>) {
  abstract class CursorPage {
    @ApiProperty({ type: [item], description: 'Newest first; at most `limit` items' })
    data: T[];

    @ApiProperty({
      type: String,
      nullable: true,
      example: 'WyIyMDI2LTAxLTE1VDEwOjAwOjAwLjAwMFoiLCJjbnRfMGExYjJjM2Q0ZTVmNmc3aDhpOWoiXQ',
      description: 'Pass it as `cursor` to get the next page; null on the last page',
    })
    cursor: string | null;

    @ApiProperty({ description: 'True when another page follows' })
    hasMore: boolean;

    @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of matching items, counted on the first page only (no `cursor` given); 0 on later pages' })
    total: number;
  }
  return CursorPage;
}
