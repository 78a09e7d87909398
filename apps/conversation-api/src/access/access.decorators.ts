import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '../common/error-envelope.dto';
import type { Permission } from './permissions';

export const PUBLIC_ROUTE = 'conversation:public';
export const REQUIRED_PERMISSION = 'conversation:permission';

const errorBody = { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } } };

/** No access token needed (login, refresh, password reset, webhooks). */
export function Public(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ApiExtraModels(ErrorEnvelopeDto));
}

/**
 * The one access declaration of a route: a valid access token (401 `UNAUTHORIZED` otherwise) and,
 * when given, the permission (403 `FORBIDDEN`; `admin` grants all). Without a permission any
 * authenticated user of the account may call it.
 */
export function RequirePermission(permission?: Permission): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_PERMISSION, permission ?? null),
    ApiBearerAuth(),
    ApiExtraModels(ErrorEnvelopeDto),
    ApiResponse({ status: 401, description: '`UNAUTHORIZED`: no, an invalid or an expired access token, or a revoked session', content: errorBody }),
    ...(permission ? [ApiResponse({ status: 403, description: `\`FORBIDDEN\`: the caller's role lacks \`${permission}\``, content: errorBody })] : []),
  );
}

/** An error answer of a route in the error envelope (Swagger only): `ApiErrorAnswer(404, '`CONTACT_NOT_FOUND`: …')`. */
export function ApiErrorAnswer(status: number, description: string): MethodDecorator {
  return applyDecorators(ApiExtraModels(ErrorEnvelopeDto), ApiResponse({ status, description, content: errorBody }));
}
