import { Param, ParseIntPipe } from '@nestjs/common';
import { ApiError } from '@platform/errors';

/** A positive integer path parameter; anything else is a 400 naming the parameter. */
export const IdParam = (name = 'id') =>
  Param(
    name,
    new ParseIntPipe({
      exceptionFactory: () => new ApiError(400, 'VALIDATION_ERROR', `${name} must be a positive integer`),
    }),
  );
