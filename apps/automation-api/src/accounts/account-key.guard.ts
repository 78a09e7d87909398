import { Injectable, applyDecorators, createParamDecorator, UseGuards, type ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ApiKeyGuard, bearerToken, type GuardRequest } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { ErrorDto } from '../common/error.dto';
import { AccountsService } from './accounts.service';
import type { AccountEntity } from './entities/account.entity';

/** `Authorization: Bearer <key>` binds the request to one account (req.user = AccountEntity). */
@Injectable()
export class AccountKeyGuard extends ApiKeyGuard<AccountEntity> {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  protected override extractKey(req: GuardRequest): string | undefined {
    return bearerToken(req);
  }

  protected override unauthorized(): Error {
    return new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid API key: send the header Authorization: Bearer <API_KEY>');
  }

  protected resolve(keyHash: string): Promise<AccountEntity | null> {
    return this.accounts.findByKeyHash(keyHash);
  }
}

/** Guards a controller with the account key and documents it. */
export const AccountAuth = () =>
  applyDecorators(UseGuards(AccountKeyGuard), ApiBearerAuth(), ApiUnauthorizedResponse({ description: 'Missing or invalid API key', type: ErrorDto }));

/** The account the request's key belongs to. */
export const CurrentAccount = createParamDecorator((_data: unknown, ctx: ExecutionContext): AccountEntity => {
  return ctx.switchToHttp().getRequest<{ user: AccountEntity }>().user;
});
