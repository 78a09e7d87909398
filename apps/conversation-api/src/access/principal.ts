import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The authenticated caller of a request (`req.principal`). Every query is scoped to `accountId`. */
export interface Principal {
  userId: string;
  accountId: string;
  email: string;
  name: string;
  role: string;
  roleId: string;
  permissions: string[];
  sessionId: string;
  /** When the access token expires (seconds since the epoch). */
  expiresAt: number;
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<{ principal?: Principal }>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});
