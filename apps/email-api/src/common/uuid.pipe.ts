import type { PipeTransform } from '@nestjs/common';
import { ApiError } from '@platform/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that is no UUID names no row: 404 with the resource's code (never a database error). */
export function uuidPipe(code: string, what: string): PipeTransform<string, string> {
  return {
    transform(value: string): string {
      if (!UUID.test(value)) throw new ApiError(404, code, `${what} not found`);
      return value.toLowerCase();
    },
  };
}
