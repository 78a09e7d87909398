import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';

/**
 * The dashboard's login: the page posts the administrator's credentials here (same origin, no CORS
 * needed) and this service asks auth-api's logistics realm (`POST {AUTH_URL}/api/v1/logistics/auth/login`),
 * answering its access token. Only admins get one: the dashboard's endpoints and socket take no other role.
 */
@Injectable()
export class DashboardService {
  private readonly loginUrl: string | null;

  constructor(@Inject(LogisticsHooksConfig) config: LogisticsHooksConfig) {
    const base = config.AUTH_URL ?? (config.AUTH_JWKS_URL ? new URL(config.AUTH_JWKS_URL).origin : null);
    this.loginUrl = base ? `${base.replace(/\/+$/, '')}/api/v1/logistics/auth/login` : null;
  }

  async login(email: string, password: string): Promise<{ access_token: string; expires_in: number | null; role: string }> {
    if (!this.loginUrl) throw new ApiError(503, 'AUTH_NOT_CONFIGURED', 'The dashboard login is not configured', { suggestion: 'An operator sets AUTH_URL (or AUTH_JWKS_URL) to auth-api.' });
    let res: Response;
    try {
      res = await fetch(this.loginUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }), signal: AbortSignal.timeout(10_000) });
    } catch {
      throw new ApiError(502, 'AUTH_UNAVAILABLE', 'The login service did not answer', { suggestion: 'Try again in a moment.' });
    }
    const body = (await res.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown; user?: { role?: unknown } } | null;
    if (res.status === 401 || res.status === 400 || res.status === 422) throw new ApiError(401, 'INVALID_CREDENTIALS', 'Wrong email or password', { suggestion: 'Check the email and password of your administrator account.' });
    if (!res.ok || typeof body?.access_token !== 'string') throw new ApiError(502, 'AUTH_UNAVAILABLE', `The login service answered ${res.status}`, { suggestion: 'Try again in a moment.' });
    const role = roleOf(body.access_token) ?? (typeof body.user?.role === 'string' ? body.user.role : '');
    if (role !== 'admin') throw new ApiError(403, 'FORBIDDEN', 'The error dashboard is for administrators only', { suggestion: 'Log in with an administrator account.' });
    return { access_token: body.access_token, expires_in: typeof body.expires_in === 'number' ? body.expires_in : null, role };
  }
}

/** The `role` claim of a JWT (its signature is checked by every endpoint that takes it; here it only shapes the answer). */
function roleOf(token: string): string | null {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { role?: unknown };
    return typeof claims.role === 'string' ? claims.role : null;
  } catch {
    return null;
  }
}
