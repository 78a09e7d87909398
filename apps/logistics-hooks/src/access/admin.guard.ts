import { Injectable, UseGuards, applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { JwtBearerGuard, Roles, RolesGuard } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { AdminTokenVerifier, type AdminUser } from './admin-token.verifier';

/** `Authorization: Bearer <auth-api logistics access token>`; see {@link AdminTokenVerifier}. */
@Injectable()
export class AdminJwtGuard extends JwtBearerGuard<AdminUser> {
  constructor(reflector: Reflector, private readonly tokens: AdminTokenVerifier) {
    super(reflector);
  }

  protected authenticate(token: string): Promise<AdminUser | null> {
    return this.tokens.verify(token);
  }

  protected override unauthorized(): Error {
    return new ApiError(401, 'UNAUTHORIZED', 'Could not validate credentials', {
      suggestion: 'Log in at auth-api (POST /api/v1/logistics/auth/login) and send the access token as Authorization: Bearer <token>.',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
}

@Injectable()
export class AdminRolesGuard extends RolesGuard {
  protected override forbidden(required: string[]): Error {
    return new ApiError(403, 'FORBIDDEN', `This action requires the role ${required.join(' or ')}`, {
      suggestion: 'Log in with an admin account of the logistics realm.',
    });
  }
}

/** The handler needs an admin of auth-api's logistics realm: no or bad token 401, another role 403. */
export function AdminAccess(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    Roles('admin'),
    UseGuards(AdminJwtGuard, AdminRolesGuard),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: '`UNAUTHORIZED`: no token, or not a valid logistics-realm access token of auth-api' }),
    ApiForbiddenResponse({ description: '`FORBIDDEN`: the token\'s role is not `admin`' }),
  );
}
