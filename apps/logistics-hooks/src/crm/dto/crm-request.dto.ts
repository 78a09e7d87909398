import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Max, Min } from 'class-validator';
import { CRM_KINDS, type CrmKind } from '../crm-objects.repository';

export const CRM_ACTIONS = ['push', 'get', 'stats'] as const;

export class CrmRequestDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiProperty({ enum: CRM_ACTIONS })
  @IsIn(CRM_ACTIONS)
  action!: (typeof CRM_ACTIONS)[number];

  @ApiPropertyOptional({
    description:
      '`push` only: `{accounts?, contacts?, deals?, leads?, tasks?}`, each an array of objects with an `id` (text or number, ≤ 200 characters); ' +
      'an object with `deleted: true` removes the stored one. At most CRM_MAX_OBJECTS_PER_PUSH objects per push.',
    example: { deals: [{ id: 'd1', amount: 1000, probability: 0.5, stage: 'proposal', owner: 'ana' }] },
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: CRM_KINDS, description: '`get` only: one kind (default: all)' })
  @IsOptional()
  @IsIn(CRM_KINDS)
  kind?: CrmKind;

  @ApiPropertyOptional({ description: '`get` only: objects per kind (1–5000, default 1000)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(5000)
  limit?: number;

  @ApiPropertyOptional({ description: '`get` only: objects skipped per kind (default 0)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}
