import { ForbiddenException, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { hashApiKey } from './api-key';
import { ApiKeyGuard } from './api-key.guard';
import { Public, Roles } from './decorators';
import { bearerToken, cookieValue, JwtBearerGuard, JwtCookieGuard, type GuardRequest } from './jwt-guard';
import { RolesGuard } from './roles.guard';

class Handlers {
  open() {}
  adminOnly() {}
  anyone() {}
}
Public()(Handlers.prototype, 'open', Object.getOwnPropertyDescriptor(Handlers.prototype, 'open')!);
Roles('admin', 'manager')(Handlers.prototype, 'adminOnly', Object.getOwnPropertyDescriptor(Handlers.prototype, 'adminOnly')!);

function context(req: GuardRequest, handler: keyof Handlers): ExecutionContext {
  return {
    getHandler: () => Handlers.prototype[handler],
    getClass: () => Handlers,
    switchToHttp: () => ({ getRequest: () => req }),
  } as unknown as ExecutionContext;
}

const reflector = new Reflector();

class TestBearerGuard extends JwtBearerGuard<{ id: string }> {
  constructor() {
    super(reflector);
  }
  protected async authenticate(token: string) {
    if (token === 'boom') throw new Error('verification failed');
    return token === 'good' ? { id: 'u1' } : null;
  }
}

class TestCookieGuard extends JwtCookieGuard<{ id: string }> {
  protected readonly cookieName = 'session';
  constructor() {
    super(reflector);
  }
  protected async authenticate(token: string) {
    return token === 'good token' ? { id: 'c1' } : null;
  }
}

class TestApiKeyGuard extends ApiKeyGuard<{ account: string }> {
  constructor() {
    super(reflector);
  }
  protected async resolve(keyHash: string) {
    return keyHash === hashApiKey('secret-key') ? { account: 'a1' } : null;
  }
}

describe('token extraction', () => {
  it('reads a bearer token with any scheme case', () => {
    expect(bearerToken({ headers: { authorization: 'Bearer abc.def' } })).toBe('abc.def');
    expect(bearerToken({ headers: { authorization: 'bearer abc' } })).toBe('abc');
    expect(bearerToken({ headers: { authorization: 'Basic abc' } })).toBeUndefined();
    expect(bearerToken({ headers: { authorization: 'Bearer' } })).toBeUndefined();
    expect(bearerToken({ headers: {} })).toBeUndefined();
  });

  it('reads one cookie among several, decoding it', () => {
    const req = { headers: { cookie: 'a=1; session=good%20token; b="2"' } };
    expect(cookieValue(req, 'session')).toBe('good token');
    expect(cookieValue(req, 'b')).toBe('2');
    expect(cookieValue(req, 'missing')).toBeUndefined();
  });
});

describe('JwtBearerGuard', () => {
  const guard = new TestBearerGuard();

  it('stores the principal on the request', async () => {
    const req: GuardRequest = { headers: { authorization: 'Bearer good' } };
    await expect(guard.canActivate(context(req, 'anyone'))).resolves.toBe(true);
    expect(req.user).toEqual({ id: 'u1' });
  });

  it.each([['no header', {}], ['refused token', { authorization: 'Bearer bad' }], ['throwing verifier', { authorization: 'Bearer boom' }]])(
    'refuses with 401 on %s',
    async (_name, headers) => {
      await expect(guard.canActivate(context({ headers }, 'anyone'))).rejects.toBeInstanceOf(UnauthorizedException);
    },
  );

  it('lets @Public() handlers through without a token', async () => {
    await expect(guard.canActivate(context({ headers: {} }, 'open'))).resolves.toBe(true);
  });
});

describe('JwtCookieGuard', () => {
  it('authenticates from the named cookie only', async () => {
    const guard = new TestCookieGuard();
    const req: GuardRequest = { headers: { cookie: 'session=good%20token' } };
    await expect(guard.canActivate(context(req, 'anyone'))).resolves.toBe(true);
    expect(req.user).toEqual({ id: 'c1' });
    await expect(guard.canActivate(context({ headers: { authorization: 'Bearer good token' } }, 'anyone'))).rejects.toBeInstanceOf(
      UnauthorizedException,
    );
  });
});

describe('ApiKeyGuard', () => {
  const guard = new TestApiKeyGuard();

  it('resolves the hashed key from X-API-Key or a bearer header', async () => {
    const req: GuardRequest = { headers: { 'x-api-key': 'secret-key' } };
    await expect(guard.canActivate(context(req, 'anyone'))).resolves.toBe(true);
    expect(req.user).toEqual({ account: 'a1' });
    await expect(guard.canActivate(context({ headers: { authorization: 'Bearer secret-key' } }, 'anyone'))).resolves.toBe(true);
  });

  it('refuses unknown and missing keys', async () => {
    await expect(guard.canActivate(context({ headers: { 'x-api-key': 'other' } }, 'anyone'))).rejects.toBeInstanceOf(
      UnauthorizedException,
    );
    await expect(guard.canActivate(context({ headers: {} }, 'anyone'))).rejects.toBeInstanceOf(UnauthorizedException);
  });
});

describe('RolesGuard', () => {
  const guard = new RolesGuard(reflector);

  it('allows handlers without @Roles()', () => {
    expect(guard.canActivate(context({ headers: {}, user: { role: 'driver' } }, 'anyone'))).toBe(true);
  });

  it('allows a principal with a listed role (single role or roles array)', () => {
    expect(guard.canActivate(context({ headers: {}, user: { role: 'admin' } }, 'adminOnly'))).toBe(true);
    expect(guard.canActivate(context({ headers: {}, user: { roles: ['x', 'manager'] } }, 'adminOnly'))).toBe(true);
  });

  it('refuses others with 403', () => {
    expect(() => guard.canActivate(context({ headers: {}, user: { role: 'driver' } }, 'adminOnly'))).toThrow(ForbiddenException);
    expect(() => guard.canActivate(context({ headers: {} }, 'adminOnly'))).toThrow(ForbiddenException);
  });
});
