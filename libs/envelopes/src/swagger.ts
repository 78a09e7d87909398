import { applyDecorators, HttpStatus, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

export interface EnvelopeDocOptions {
  /** Response status; default 200. */
  status?: number;
  description?: string;
  /** `data` is an array of the DTO. */
  isArray?: boolean;
}

/** Documents a `{success: true, data: Dto}` response (`ok(dto)`). */
export function ApiOkEnvelope(dto: Type<unknown>, opts: EnvelopeDocOptions = {}): MethodDecorator & ClassDecorator {
  const item = { $ref: getSchemaPath(dto) };
  return applyDecorators(
    ApiExtraModels(dto),
    ApiResponse({
      status: opts.status ?? HttpStatus.OK,
      description: opts.description ?? 'Success envelope',
      schema: {
        type: 'object',
        required: ['success', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          data: opts.isArray ? { type: 'array', items: item } : item,
        },
      },
    }),
  );
}

/** Documents a `{success: true, data: Dto[], meta: {total, page, limit}}` response (`page(items, meta)`). */
export function ApiPageEnvelope(
  dto: Type<unknown>,
  opts: Omit<EnvelopeDocOptions, 'isArray'> = {},
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(dto),
    ApiResponse({
      status: opts.status ?? HttpStatus.OK,
      description: opts.description ?? 'Paginated success envelope',
      schema: {
        type: 'object',
        required: ['success', 'data', 'meta'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          data: { type: 'array', items: { $ref: getSchemaPath(dto) } },
          meta: {
            type: 'object',
            required: ['total', 'page', 'limit'],
            properties: {
              total: { type: 'integer', minimum: 0 },
              page: { type: 'integer', minimum: 1 },
              limit: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    }),
  );
}
