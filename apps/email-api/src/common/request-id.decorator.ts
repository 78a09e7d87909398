import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The request id the platform assigned (`req.id`): carried into events as their correlation id. */
export const RequestId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | undefined => {
  const id = ctx.switchToHttp().getRequest<{ id?: unknown }>().id;
  return typeof id === 'string' ? id : undefined;
});
